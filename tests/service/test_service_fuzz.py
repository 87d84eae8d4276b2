"""The OpenAPI schema tells the truth, checked by a fuzzer (schemathesis, on the real server): no
500 and no traceback whatever is sent; every status answered is one the route declares; every
request the schema calls valid is accepted (or is a 404/409 for an index, model or id that is
not there); invalid ones are refused; every error is the JSON shape. Writes are fuzzed with the
key, on this module's own copy of the indexes.

Strategies come from schemathesis's Python API and run under hypothesis here (its pytest plugin,
`from_fixture`, fails on this pytest: 'Function' object has no attribute '_nodeid'). Every
failure is collected, not only the first, and the assertion lists them by check."""

from __future__ import annotations

import collections

import pytest
from conftest import KEY, make_root, running_server, wait_until_ready
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable

schemathesis = pytest.importorskip("schemathesis")
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.config._checks import NegativeDataRejectionConfig  # noqa: E402
from schemathesis.core.failures import FailureGroup  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

EXAMPLES = 20  # per operation and mode: ~350 requests in all
CHECKS = {GenerationMode.POSITIVE: [not_a_server_error, status_code_conformance,
                                    content_type_conformance, response_schema_conformance,
                                    positive_data_acceptance],
          GenerationMode.NEGATIVE: [not_a_server_error, status_code_conformance,
                                    content_type_conformance, negative_data_rejection]}


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory, _tiny_built):
    """A server of its own: the fuzzer's writes land in indexes no other test reads."""
    folder = tmp_path_factory.mktemp("fuzz")
    with running_server(make_root(folder / "root", _tiny_built), folder) as running:
        wait_until_ready(running.url)  # /ready answers 503 while its encoders load
        yield running


def shape(response) -> str | None:
    """What is wrong with an error's body, or None."""
    if "Traceback" in response.text:
        return "a traceback in the answer"
    if response.status_code >= 400:
        error = response.json().get("error")
        if not (isinstance(error, dict) and isinstance(error.get("message"), str)
                and error["message"] and isinstance(error.get("type"), str)):
            return "not the error shape"
    return None


@pytest.mark.slow  # every operation fuzzed both ways: 29 s of the quick lane (make test runs it)
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_the_schema_is_what_the_server_does(fuzzed, mode):
    api = schemathesis.openapi.from_url(f"{fuzzed.url}/openapi.json")
    # a refusal is a refusal: 413 names the size limit a too-long batch is over
    api.config.checks.negative_data_rejection = NegativeDataRejectionConfig(
        expected_statuses=[*NegativeDataRejectionConfig().expected_statuses, "413"])
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 12
    tried, failures = set(), collections.defaultdict(list)
    for operation in operations:
        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def fuzz(case):
            if case.path == "/v1/explain" and isinstance(case.body, dict):
                case.body["method"] = "occlusion"  # the exact method on long text: minutes
            tried.add(case.operation.label)
            response = case.call(headers={"Authorization": f"Bearer {KEY}"}, timeout=120)
            try:
                case.validate_response(response, checks=CHECKS[mode])
            except (AssertionError, FailureGroup) as failed:  # schemathesis's failures
                found = getattr(failed, "exceptions", [failed])
                title = "; ".join(getattr(e, "title", type(e).__name__) for e in found)
                failures[f"{title} ({case.operation.label}, {response.status_code})"].append(
                    (case.path_parameters, repr(case.body)[:300], response.text[:200]))
                return
            wrong = shape(response)
            if wrong:
                failures[wrong].append((case.method, case.path, response.text[:200]))

        try:
            fuzz()
        except Unsatisfiable:  # negative mode: an operation with no input to get wrong
            assert mode == GenerationMode.NEGATIVE and operation.method.upper() == "GET"
    takes_input = {o.label for o in operations if o.method.upper() != "GET"}
    assert takes_input <= tried and len(takes_input) >= 7
    assert not failures, "\n".join(f"{title}: {len(cases)} × e.g. {cases[0]}"
                                   for title, cases in failures.items())
