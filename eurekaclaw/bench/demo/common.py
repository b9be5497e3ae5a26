"""What the two demonstration models share: finding the problem a request is about, the
smallest object an output schema admits, and the replies of the roles both play the same way."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

CONSISTENT = {
    "proves_statement": True,
    "assumptions_respected": True,
    "cited_lemmas_used_correctly": True,
    "verdict": "consistent",
    "issues": [],
}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".").lower()


@lru_cache(maxsize=1)
def _known_problems() -> list[Any]:
    from eurekaclaw.bench.problems import bundled_sets, load_problem_set

    problems = []
    for name in bundled_sets():
        problems.extend(load_problem_set(name).problems)
    return problems


def problem_in(prompt: str) -> Any | None:
    """The bundled problem whose statement appears in the prompt, longest match first."""
    text = _norm(prompt)
    hits = [p for p in _known_problems() if _norm(p.statement) in text]
    return max(hits, key=lambda p: len(p.statement)) if hits else None


def minimal(model: type[BaseModel]) -> Any:
    """The smallest instance the model's JSON schema admits."""
    schema = model.model_json_schema()
    defs = schema.get("$defs", {})

    def build(node: dict[str, Any]) -> Any:
        if "$ref" in node:
            return build(defs[node["$ref"].rsplit("/", 1)[-1]])
        if "anyOf" in node:
            options = [o for o in node["anyOf"] if o.get("type") != "null"]
            return None if len(options) < len(node["anyOf"]) else build(options[0])
        if "enum" in node:
            return node["enum"][0]
        if "const" in node:
            return node["const"]
        kind = node.get("type")
        if kind == "object":
            required = node.get("required", [])
            return {k: build(v) for k, v in node.get("properties", {}).items() if k in required}
        if kind == "array":
            return [build(node.get("items", {})) for _ in range(node.get("minItems", 0))]
        if kind == "string":
            return "x" * max(1, node.get("minLength", 1))
        if kind in ("number", "integer"):
            low = node.get("minimum", node.get("exclusiveMinimum", 0))
            return max(low, min(node.get("maximum", 0.5), 0.5))
        if kind == "boolean":
            return False
        return None

    return build(schema)


def common_reply(request: Any, text: str) -> Any:
    """Both models' answer outside the roles they play in detail: the consistency check passes,
    no counterexample candidates, the smallest valid object for any other structured request,
    else `text`."""
    if request.role == "consistency_checker":
        return CONSISTENT
    if request.role == "counterexample_searcher":
        return {"candidates": []}
    if request.output is not None:
        return minimal(request.output)
    return text
