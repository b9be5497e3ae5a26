"""The honest demonstration model: it formalizes a statement as exactly its claim (one lemma,
checkable by the falsifier and the SMT solver), proves it in a line, and reviews by saying what
it could not check. A statement it has no claim for it leaves open rather than pretend.

Use: --llm scripted:<this file>, on problems that carry a `claim` (see docs/bench.md)."""

from __future__ import annotations

from typing import Any

from eurekaclaw.bench.demo.common import common_reply, problem_in

MODEL = "scripted-honest"

# The problem this session is about (one backend per session, so per-module state is per session).
_session: dict[str, Any] = {}

PASS = {"verdict": "pass", "confidence": 0.8, "errors": [], "summary": "each step follows from the claim"}
FAIL = {
    "verdict": "fail",
    "confidence": 0.9,
    "errors": [
        {
            "category": "gap",
            "description": "the statement has no machine-checkable form",
            "location": "whole proof",
            "severity": "major",
        }
    ],
    "summary": "I could not check this statement",
}


def plan_for(problem: Any) -> dict[str, Any]:
    claim = problem.claim.model_dump(mode="json") if problem.claim is not None else None
    return {
        "formal_statement": problem.statement,
        "assumptions": list(claim["assumptions"]) if claim else [],
        "proof_plan": [
            {"id": "P1", "description": "Check the claim directly.", "provenance": "new", "lemma_ids": ["T"]}
        ],
        "lemmas": [
            {
                "id": "T",
                "statement": problem.statement,
                "informal": "the statement itself",
                "provenance": "new",
                "dependencies": [],
                "is_root": True,
                "claim": claim,
                "claim_is_statement": claim is not None,
            }
        ],
    }


def respond(request: Any) -> Any:
    name = request.output_name()
    role = request.role
    if role == "formalizer" and name == "FormalPlan":
        problem = problem_in(request.prompt_text())
        if problem is not None:
            _session["problem"] = problem
            return plan_for(problem)
    if role in ("prover", "refiner"):
        attempt = {
            "proof": "The claim is an algebraic identity or inequality in its variables; "
            "it follows by rearranging into a sum of squares.",
            "self_assessment": {
                "confidence": 0.5,
                "gaps": ["relies on the mechanical check"],
                "weakest_step": "the rearrangement",
            },
        }
        return {"strategy": "new_approach", "attempt": attempt} if name == "BroadRepair" else attempt
    if role == "verifier":
        # it defers to the mechanical checks when there are some, and says so when there are none
        problem = _session.get("problem")
        return PASS if problem is not None and problem.claim is not None else FAIL
    return common_reply(request, "No further comment.")
