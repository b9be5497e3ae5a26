"""The `schema` backend: a seeded test model that answers any role with an object of the
requested schema, in the spirit of pydantic-ai's TestModel.

Scripted replies cover the paths their author imagined; this model covers the rest. For a
structured request it walks the output model's JSON schema (refs, unions, enums, bounds, list
and string lengths) and fills every field with a seeded pseudo-random value, validating the
result against the model and trying a few other draws when a field validator objects. Strings
come from a pool of things real models send: ids with underscores and dots, LaTeX, claim-like
formulas, "pass", empty-looking prose. Plain-text requests get a short paragraph.

Nothing it says is mathematics, so a session driven by it must never end `proved`; the e2e
test holds the pipeline to that. Use: `--llm schema` or `--llm schema:<seed>`.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from pydantic import BaseModel, ValidationError

from eurekaclaw.llm.client import BaseLLMClient
from eurekaclaw.llm.types import LLMRequest, LLMResponse, ModelTier, Usage

ATTEMPTS = 8
MAX_DEPTH = 6

# Strings real models send, including the awkward ones.
_WORDS = (
    "lemma_2",
    "L1",
    "pull_event.bound",
    "T",
    "step:3",
    "pass",
    "passed",
    "ok",
    "Proof.",
    r"$\sum_{t=1}^{n} X_t \le \sqrt{2 n \log n}$",
    r"\frac{8\ln n}{\Delta_i}",
    "x**2 - 2*x + 1 >= 0",
    "log(x) <= x - 1",
    "By induction on n.",
    "the claim follows",
    "Δ_i > 0",
    "Auer et al. (2002)",
    "ProofAttempt",
    "",
    " ",
    "∀ε>0",
    "see above",
    "TODO",
    "\\ref{lem:pull_event}",
)

# Fields that name other objects draw from one small pool, so plans sometimes hang together
# and the stages behind Formalize run too; claim fields draw formulas in the claim language,
# true and false ones alike.
_IDS = ("L1", "lemma_2", "T", "pull_event.bound")
_ID_LISTS = ("dependencies", "lemma_ids", "depends_on", "cites", "uses", "supersedes", "replaces")
_FORMULAS = (
    "x**2 - 2*x + 1 >= 0",
    "x**2 - 3*x + 2 >= 0",
    "log(x) <= x - 1",
    "x >= 0",
    "x + 1 > x",
    "sqrt(x*y) <= (x + y)/2",
    "exp(x) >= 1 + x",
    "x**2 >= x",
    "n**2 >= n",
    "1/x > 0",
)
_VARIABLES = ("x", "y", "n")


def _seed_for(base: int, request: LLMRequest, attempt: int) -> int:
    """Same request, same seed, same reply: runs are reproducible call by call."""
    digest = hashlib.sha256(f"{base}:{request.fingerprint()}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class _Filler:
    def __init__(self, schema: dict[str, Any], rng: random.Random) -> None:
        self.defs: dict[str, Any] = schema.get("$defs") or schema.get("definitions") or {}
        self.rng = rng
        # ids handed out so far in this reply: `id` fields get fresh ones, lists of ids point
        # back at earlier ones, so a list of lemmas is sometimes a DAG a stage can work on
        self.issued: list[str] = []

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            name = str(node["$ref"]).rsplit("/", 1)[-1]
            merged = dict(self.defs.get(name, {}))
            merged.update({k: v for k, v in node.items() if k != "$ref"})
            node = merged
        return node

    def value(self, node: dict[str, Any], name: str = "", depth: int = 0) -> Any:
        node = self.resolve(node)
        if "const" in node:
            return node["const"]
        if "enum" in node:
            return self.rng.choice(node["enum"])
        for key in ("anyOf", "oneOf"):
            if key in node:
                return self.union(node[key], name, depth)
        if "allOf" in node:
            merged: dict[str, Any] = {}
            for part in node["allOf"]:
                merged.update(self.resolve(part))
            return self.value(merged, name, depth)
        return self.typed(node, name, depth)

    def union(self, alternatives: list[dict[str, Any]], name: str, depth: int) -> Any:
        options = [self.resolve(o) for o in alternatives]
        concrete = [o for o in options if o.get("type") != "null"]
        # deep in the tree, prefer null to keep objects finite
        if depth >= MAX_DEPTH or not concrete or (len(concrete) < len(options) and self.rng.random() < 0.2):
            return None if len(concrete) < len(options) else self.value(concrete[0], name, depth + 1)
        return self.value(self.rng.choice(concrete), name, depth + 1)

    def typed(self, node: dict[str, Any], name: str, depth: int) -> Any:
        """A value of the node's `type` (one of them, when it lists several)."""
        kind = node.get("type")
        if isinstance(kind, list):
            kind = self.rng.choice([k for k in kind if k != "null"] or ["null"])
        if kind == "object" or "properties" in node:
            return self.obj(node, depth)
        if kind == "array":
            return self.array(node, name, depth)
        if kind == "string":
            return self.string(node, name)
        if kind == "integer":
            return int(self.number(node, integer=True))
        if kind == "number":
            return self.number(node, integer=False)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self.string({}, name)  # an untyped field (Any) gets text, as a model would send

    def obj(self, node: dict[str, Any], depth: int) -> dict[str, Any]:
        props: dict[str, Any] = node.get("properties") or {}
        required = set(node.get("required") or [])
        out: dict[str, Any] = {}
        for key, sub in props.items():
            if key in required or (depth < MAX_DEPTH and self.rng.random() < 0.7):
                out[key] = self.value(sub, key, depth + 1)
        extra = node.get("additionalProperties")
        if not props and isinstance(extra, dict) and depth < MAX_DEPTH and self.rng.random() < 0.6:
            out[self.rng.choice(["x", "n", "lemma_1", "arm.2"])] = self.value(extra, "", depth + 1)
        return out

    def array(self, node: dict[str, Any], name: str, depth: int) -> list[Any]:
        low = int(node.get("minItems", 0))
        high = int(node.get("maxItems", low + 3))
        count = low if depth >= MAX_DEPTH else self.rng.randint(low, max(low, min(high, low + 3)))
        items = node.get("items") or {}
        if name.lower() in _ID_LISTS:
            earlier = self.issued[:-1]
            return self.rng.sample(earlier, self.rng.randint(0, len(earlier))) if earlier else []
        if isinstance(items, list):  # tuple-shaped arrays
            return [self.value(i, name, depth + 1) for i in items]
        return [self.value(items, name, depth + 1) for _ in range(count)]

    def string(self, node: dict[str, Any], name: str) -> str:
        low = int(node.get("minLength", 0))
        high = int(node.get("maxLength", 400))
        key = name.lower()
        if key == "id":
            fresh = _IDS[len(self.issued) % len(_IDS)]
            fresh += f"_{len(self.issued) // len(_IDS)}" if len(self.issued) >= len(_IDS) else ""
            self.issued.append(fresh)
            return fresh
        if key.endswith("_id") or key in _ID_LISTS:
            return self.rng.choice(self.issued or list(_IDS))
        if key in ("conclusion", "assumptions", "formula", "expression"):
            return self.rng.choice(_FORMULAS)
        if key == "name":
            return self.rng.choice(_VARIABLES)
        if key == "domain":
            return self.rng.choice(("real", "int", "real"))
        text = self.rng.choice(_WORDS)
        if self.rng.random() < 0.3:
            text = " ".join(self.rng.choice(_WORDS) for _ in range(self.rng.randint(2, 12)))
        while len(text) < low:
            text += " " + self.rng.choice([w for w in _WORDS if w.strip()])
        return text[:high] if len(text) > high else text

    def number(self, node: dict[str, Any], *, integer: bool) -> float:
        low = node.get("minimum", node.get("exclusiveMinimum", -5 if not integer else 0))
        high = node.get("maximum", node.get("exclusiveMaximum", low + 10))
        if "exclusiveMinimum" in node:
            low = low + (1 if integer else 1e-6)
        if "exclusiveMaximum" in node:
            high = high - (1 if integer else 1e-6)
        if high < low:
            high = low
        if integer:
            return self.rng.randint(int(low), int(high))
        return round(self.rng.uniform(float(low), float(high)), 4)


def fill_schema(output: type[BaseModel], rng: random.Random) -> dict[str, Any]:
    """One draw for `output`'s schema (not yet validated)."""
    schema = output.model_json_schema()
    value = _Filler(schema, rng).value(schema)
    return value if isinstance(value, dict) else {}


def valid_object(output: type[BaseModel], seed: int, attempts: int = ATTEMPTS) -> tuple[dict[str, Any], bool]:
    """A draw that `output` accepts, and whether one was found within `attempts`. When field
    validators refuse every draw the last one is returned unvalidated, so the caller's repair
    path runs as it would with a real model that keeps getting the schema wrong."""
    last: dict[str, Any] = {}
    for attempt in range(attempts):
        last = fill_schema(output, random.Random(seed + attempt))
        try:
            output.model_validate(last)
        except ValidationError:
            continue
        return last, True
    return last, False


class SchemaBackend(BaseLLMClient):
    name = "schema"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.calls: list[LLMRequest] = []
        self.invalid: list[str] = []  # output models no draw satisfied

    def model_for(self, tier: ModelTier) -> str:
        return f"schema-test-model-{tier}"

    def review_counts_as_evidence(self) -> bool:
        return False  # its reviews are noise by construction

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.calls.append(request)
        seed = _seed_for(self.seed, request, 0)
        if request.output is not None:
            data, ok = valid_object(request.output, seed)
            if not ok:
                self.invalid.append(request.output.__name__)
            text = json.dumps(data, ensure_ascii=False)
            return LLMResponse(
                structured=data,
                model=self.model_for(request.tier),
                usage=Usage(input_tokens=len(request.prompt_text()) // 4 + 1, output_tokens=len(text) // 4 + 1),
            )
        rng = random.Random(seed)
        text = " ".join(rng.choice([w for w in _WORDS if w.strip()]) for _ in range(rng.randint(5, 40)))
        return LLMResponse(
            text=text,
            model=self.model_for(request.tier),
            usage=Usage(input_tokens=len(request.prompt_text()) // 4 + 1, output_tokens=len(text) // 4 + 1),
        )
