"""The careless demonstration model: whatever the statement, it plans lemmas without claims,
"proves" each with a sentence, passes every review and consistency check, and finds no
counterexample. Nothing it says is checked mathematics, so a sound pipeline must not let it
turn a false statement into `proved`; the bench counts how often it does.

Use: --llm scripted:<this file>."""

from __future__ import annotations

from typing import Any

from eurekaclaw.bench.demo.common import common_reply, problem_in

MODEL = "scripted-careless"

PASS = {"verdict": "pass", "confidence": 0.99, "errors": [], "summary": "Correct."}


def plan_for(statement: str) -> dict[str, Any]:
    return {
        "formal_statement": statement,
        "assumptions": [],
        "proof_plan": [{"id": "P1", "description": "Standard.", "provenance": "new", "lemma_ids": ["aux", "T"]}],
        "lemmas": [
            {
                "id": "aux",
                "statement": "The expression is bounded as required.",
                "informal": "a bound",
                "provenance": "new",
                "dependencies": [],
                "claim": None,
            },
            {
                "id": "T",
                "statement": statement,
                "informal": "the statement",
                "provenance": "new",
                "dependencies": ["aux"],
                "is_root": True,
                "claim": None,
            },
        ],
    }


def respond(request: Any) -> Any:
    name = request.output_name()
    role = request.role
    if role == "formalizer" and name == "FormalPlan":
        problem = problem_in(request.prompt_text())
        return plan_for(problem.statement if problem is not None else "The statement holds.")
    if role in ("prover", "refiner"):
        attempt = {
            "proof": r"By Lemma~\ref{lem:aux} this is standard and follows from the definitions."
            if request.lemma_id == "T"
            else "This is standard and follows from the definitions.",
            "self_assessment": {"confidence": 1.0, "gaps": [], "weakest_step": "none"},
        }
        return {"strategy": "new_approach", "attempt": attempt} if name == "BroadRepair" else attempt
    if role == "verifier":
        return PASS
    return common_reply(request, "All results are correct and novel.")
