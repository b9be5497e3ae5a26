"""A scripted model for revisions that re-run stages, through the real command or a runner.

The scope decision follows the feedback's first word (PROSE:, THEORY:, WHOLE:, EXPERIMENT:, CLAIM:); the
prover writes a proof that claims to be formally verified (a careless model); the verifier passes
or fails it as RESTAGE_VERIFIER says, so the recorded level is the checker's, never the claim's.
"""

from __future__ import annotations

import os
import re
from typing import Any

MODEL = "restage"
PROSE = {
    "title": "A gap-free regret bound for UCB1 with explicit constants",
    "abstract": "We study a gap-free regret bound for the UCB1 policy with explicit constants; every step is "
    "labelled with how it was checked.",
    "introduction": "Stochastic bandits model the exploration-exploitation trade-off. Lemma~\\ref{lem:L2} bounds "
    "the pulls of a suboptimal arm, using the union bound over rounds as the reader asked.",
    "preliminaries": "Let $K$ be the number of arms and $T$ the horizon; $\\Delta_i$ is the gap of arm $i$.",
    "related_work": "",
    "limitations": "Lemma~\\ref{lem:L2} was checked by a model review and numeric falsification only.",
    "experiments": "",
}
PASS = {"verdict": "pass", "confidence": 0.9, "errors": [], "summary": "correct"}
FAIL = {
    "verdict": "fail",
    "confidence": 0.9,
    "summary": "a step does not follow",
    "errors": [
        {"category": "gap", "description": "the union bound is applied to dependent events", "severity": "major"}
    ],
}
CONSISTENT = {
    "proves_statement": True,
    "assumptions_respected": True,
    "cited_lemmas_used_correctly": True,
    "verdict": "consistent",
    "issues": [],
}


def scope(prompt: str) -> dict[str, Any]:
    feedback = prompt.rsplit(":\n", 1)[-1]
    if "THEORY:" in feedback:
        return {
            "scope": "theory",
            "lemmas": ["L2", "L9"],
            "experiment": False,
            "reason": "the proof of L2 is questioned; it is now formally verified",
        }
    if "WHOLE:" in feedback:
        return {"scope": "theory", "lemmas": [], "experiment": False, "reason": "the whole argument is questioned"}
    if "EXPERIMENT:" in feedback:
        return {"scope": "experiment", "lemmas": [], "experiment": True, "reason": "longer horizons asked for"}
    if "CLAIM:" in feedback:
        return {"scope": "sideways", "lemmas": "L2"}  # unusable: the rules decide
    return {"scope": "prose", "lemmas": [], "experiment": False, "reason": "wording only"}


def proof(prompt: str, lemma: str | None) -> dict[str, Any]:
    deps = re.findall(r"^- Lemma (\S+) \[", prompt, flags=re.MULTILINE)
    cites = ", ".join(f"Lemma~\\ref{{lem:{d}}}" for d in deps) or "the standing assumptions"
    return {
        "proof": f"Proof of {lemma}: by {cites}, apply the union bound over the rounds and sum the "
        "per-round terms; the claim follows. This proof was formally verified in Coq.",
        "self_assessment": {"confidence": 1.0, "gaps": [], "weakest_step": ""},
    }


def respond(request: Any) -> dict[str, Any] | None:
    role, prompt = request.role, request.prompt_text()
    if role == "revision_scope":
        return scope(prompt)
    if role in ("prover", "refiner"):
        return proof(prompt, request.lemma_id)
    if role == "verifier":
        return PASS if os.environ.get("RESTAGE_VERIFIER", "pass") == "pass" else FAIL
    if role == "counterexample_searcher":
        return {"candidates": []}
    if role == "consistency_checker":
        return CONSISTENT
    if role == "experiment_designer":
        return {"rationale": "the lemma claims are sampled directly", "code": "", "variables": {}, "bounds": []}
    if role == "writer":
        return PROSE
    if role == "reviser":
        return {
            **{k: None for k in PROSE},
            "introduction": PROSE["introduction"],
            "summary": "Reworded.",
            "needs": [],
            "needs_reason": "",
        }
    return None
