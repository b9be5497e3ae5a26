"""The independent reviewer for tests/e2e/capable_responder.py (--review-llm): another model name,
so reviews are not self-reviews. It reads each proof it is shown the way a careful referee of
an honest proof does, and passes it; it answers the consistency check the same way, and judges
the result's novelty as low (it is a classical bound)."""

from __future__ import annotations

from typing import Any

from eurekaclaw.bench.demo.common import CONSISTENT, minimal

MODEL = "scripted-capable-reviewer"

PASS = {
    "verdict": "pass",
    "confidence": 0.85,
    "errors": [],
    "summary": "each step follows from the hypotheses and the cited lemmas",
}


def respond(request: Any) -> Any:
    if request.role == "verifier":
        return PASS
    if request.role == "consistency_checker":
        return CONSISTENT
    if request.output_name() == "NoveltyJudgement":
        return {"score": 0.2, "rationale": "the classical UCB1 bound of Auer, Cesa-Bianchi and Fischer (2002)"}
    if request.output is not None:
        return minimal(request.output)
    return "No further comment."
