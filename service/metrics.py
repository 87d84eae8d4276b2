"""What `GET /metrics` shows (Prometheus text, prometheus-client), one registry per app:

- `bertscope_requests_total{route,method,status}` and `bertscope_request_seconds{route,method}`
  (a histogram: `_bucket`, `_sum`, `_count`), by route template (`/v1/indexes/{name}/search`);
- `bertscope_requests_in_flight`, `bertscope_requests_refused_total` (429s past
  --max-concurrent-requests), `bertscope_access_refused_total{reason}` (with --keys: no_key,
  bad_key, scope, rate_limit, no_rule; without: writes_off), `bertscope_requests_on_loop_total
  {route}` (light requests answered on the event loop, alone: service/inline.py);
- `bertscope_encode_batch_texts{model}` and `bertscope_encode_queue_seconds{model}`: texts per
  encode call and how long a request waited for its batch to start;
- `bertscope_encoder_loaded{model,backend}` and `bertscope_index_version{index}`, read when
  scraped; and the process's own (`process_resident_memory_bytes`, CPU, open files).

With `--workers N` each process has its own: a scrape reaches one of them."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.process_collector import ProcessCollector

LATENCY = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
BATCH = (1, 2, 4, 8, 16, 32, 64, 128, 256)
disable_created_metrics()  # no `_created` series beside each counter and histogram

QUEUE = (0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter("bertscope_requests", "HTTP requests answered",
                                ["route", "method", "status"], registry=r)
        self.seconds = Histogram("bertscope_request_seconds", "time to answer a request",
                                 ["route", "method"], buckets=LATENCY, registry=r)
        self.in_flight = Gauge("bertscope_requests_in_flight", "requests being answered "
                               "(health, readiness and metrics not counted)", registry=r)
        self.refused = Counter("bertscope_requests_refused", "requests answered 429 past "
                               "--max-concurrent-requests", registry=r)
        self.access_refused = Counter("bertscope_access_refused", "requests refused by the "
                                      "keys (401, 403) or a principal's rate limit (429), by "
                                      "reason", ["reason"], registry=r)
        self.on_loop_total = Counter("bertscope_requests_on_loop", "light requests answered "
                                     "on the event loop while alone (no thread hop)", ["route"],
                                     registry=r)
        self.batch_texts = Histogram("bertscope_encode_batch_texts", "texts per encode call",
                                     ["model"], buckets=BATCH, registry=r)
        self.queue_seconds = Histogram("bertscope_encode_queue_seconds", "a request's wait "
                                       "for its encode batch to start (0 without --batching)",
                                       ["model"], buckets=QUEUE, registry=r)
        ProcessCollector(registry=r)

    def watch(self, service) -> None:
        """Report `service`'s loaded encoders and index versions at each scrape."""
        self.registry.register(_ServiceState(service))

    def on_loop(self, route: str) -> None:
        self.on_loop_total.labels(route).inc()

    def encoded(self, model: str, texts: int, waits: list[float]) -> None:
        """One encode call of `texts` texts, made for requests that waited `waits` seconds."""
        self.batch_texts.labels(model).observe(texts)
        queue = self.queue_seconds.labels(model)
        for wait in waits:
            queue.observe(wait)


class _ServiceState:
    def __init__(self, service) -> None:
        self.service = service

    def describe(self):
        return []  # collected only when scraped (it reads manifests)

    def collect(self):
        loaded = GaugeMetricFamily("bertscope_encoder_loaded", "encoders in memory",
                                   labels=["model", "backend"])
        for (_, backend), enc in self.service.encoders.loaded().items():
            loaded.add_metric([enc.name, backend], 1)
        yield loaded
        versions = GaugeMetricFamily("bertscope_index_version", "each index's published "
                                     "version (what the next search opens)", labels=["index"])
        indexes = self.service.indexes
        for name in indexes.names():
            version = indexes.summary(name).get("version")
            if isinstance(version, int):
                versions.add_metric([name], version)
        yield versions
