"""How the app words an encoder's backend: what encodes, its measured fidelity, and why `auto`
fell back from a faster one; for a model not loaded yet, what `auto` would pick from the exports
on disk (`encoder.auto_plan`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from encoder.backends import fidelity_text  # the one wording, also used by the pages

if TYPE_CHECKING:
    from encoder.auto_plan import AutoPlan

CAPTION = ("Encoding runs on the `auto` backend: the fastest export (ONNX Runtime or OpenVINO, "
           "int8 where it holds) whose vectors kept a cosine of at least {gate} to the torch fp32 "
           "model on calibration texts, else torch. Attention maps, explanations (\"Why this "
           "match\"), fill-mask and training always run the torch model, loaded when first "
           "needed. An index searches with the backend that made its vectors.")


def backend_row(enc, plan: AutoPlan | None = None) -> dict[str, str]:
    """Table cells for a loaded encoder; for one this server has not loaded (None), `plan`:
    what `auto` would pick from the exports on disk ("not exported yet" where none is)."""
    if enc is not None:
        return {"backend": enc.backend, "fidelity": fidelity_text(enc.backend, enc.fidelity),
                "note": enc.backend_note or ""}
    if plan is None:
        return {"backend": "not loaded yet", "fidelity": "", "note": ""}
    if plan.backend is None:
        return {"backend": "not exported yet", "fidelity": "", "note": plan.note}
    return {"backend": f"{plan.backend} (auto, not loaded yet)",
            "fidelity": fidelity_text(plan.backend, plan.fidelity), "note": plan.note}
