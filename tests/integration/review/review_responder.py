"""A scripted model for `eurekaclaw review` through the real command: a careless answerer (it
calls the reviewed lemma formally verified) and a reviser that rewrites the limitations."""

from __future__ import annotations

from typing import Any

MODEL = "careless"


def respond(request: Any) -> dict[str, Any] | None:
    if request.role == "review":
        return {
            "answer": "Lemma L2 bounds the pulls of a suboptimal arm. Lemma L2 was formally verified in Coq.",
            "cites": ["lemma:L2", "section:introduction"],
            "answerable": True,
        }
    if request.role == "reviser":
        return {
            "title": None,
            "abstract": None,
            "introduction": None,
            "preliminaries": None,
            "related_work": None,
            "experiments": None,
            # the first sentence is the records' to say (it goes); the second is new prose
            "limitations": "Lemma~\\ref{lem:L2} rests on a model review and numeric falsification; no proof "
            "assistant checked it. The constants are not optimised.",
            "summary": "Clarified how Lemma L2 was checked.",
            "needs": [],
            "needs_reason": "",
        }
    return None
