"""A scripted "model" that plays every role of a session for the offline end-to-end tests.

It answers the Formalizer with a real two-lemma plan for x^2 - 2x + 1 >= 0 whose claims Z3 and
the falsifier can check, the Prover with a proof, the Verifier and the consistency check with a
pass; any other structured request gets the smallest object its schema allows (so those stages
run their own validation and fallbacks, as they would with a weak model).
"""

from __future__ import annotations

import os
import time
from typing import Any

from eurekaclaw.bench.demo.common import common_reply

# DEMO_DELAY_S slows every reply down, so a test can interrupt a run part-way
DELAY_S = float(os.environ.get("DEMO_DELAY_S", "0"))
# DEMO_GARBAGE=1 answers everything with unusable text, like a very weak model
GARBAGE = os.environ.get("DEMO_GARBAGE") == "1"

PLAN = {
    "formal_statement": r"For every $x \in \mathbb{R}$, $x^2 - 2x + 1 \ge 0$.",
    "assumptions": [r"$x \in \mathbb{R}$"],
    "proof_plan": [
        {"id": "P1", "description": "Complete the square.", "provenance": "new", "lemma_ids": ["L1", "T"]},
    ],
    "lemmas": [
        {
            "id": "L1",
            "statement": r"For every $x \in \mathbb{R}$, $(x-1)^2 \ge 0$.",
            "informal": "a square is non-negative",
            "provenance": "new",
            "dependencies": [],
            "claim": {"variables": [{"name": "x", "domain": "real"}], "conclusion": "(x - 1)^2 >= 0"},
            "claim_is_statement": True,
        },
        {
            "id": "T",
            "statement": r"For every $x \in \mathbb{R}$, $x^2 - 2x + 1 \ge 0$.",
            "informal": "the main theorem",
            "provenance": "new",
            "dependencies": ["L1"],
            "is_root": True,
            "claim": {"variables": [{"name": "x", "domain": "real"}], "conclusion": "x^2 - 2*x + 1 >= 0"},
            "claim_is_statement": True,
        },
    ],
}
PASS = {"verdict": "pass", "confidence": 0.9, "errors": [], "summary": "every step is justified"}


def respond(request: Any) -> Any:
    if DELAY_S:
        time.sleep(DELAY_S)
    if GARBAGE:
        return "I am not sure what you mean. " * 3
    name = request.output_name()
    if request.role == "formalizer" and name == "FormalPlan":
        return PLAN
    if request.role in ("prover", "refiner"):
        proof = (
            r"Since $x^2 - 2x + 1 = (x-1)^2$ for every real $x$, Lemma~\ref{lem:L1} gives the inequality."
            if request.lemma_id == "T"
            else "A square of a real number is non-negative, and $x - 1$ is a real number."
        )
        return {"proof": proof, "self_assessment": {"confidence": 0.9, "gaps": [], "weakest_step": "none"}}
    if request.role == "verifier":
        return PASS
    return common_reply(request, "No further comment.")
