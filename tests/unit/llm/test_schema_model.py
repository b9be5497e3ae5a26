"""The schema-driven test model answers every structured request the agents make with an
object the requested model accepts, reproducibly."""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import random
import re
from pathlib import Path

import pytest
from pydantic import BaseModel, Field, field_validator

import eurekaclaw
from eurekaclaw.config import Settings
from eurekaclaw.errors import BadInputError
from eurekaclaw.llm.schema_model import SchemaBackend, fill_schema, valid_object
from eurekaclaw.llm.scripted import to_response
from eurekaclaw.llm.select import build_backend, choose_backend
from eurekaclaw.llm.types import LLMRequest, Message

PACKAGE = Path(eurekaclaw.__file__).resolve().parent
# `ask_structured(request, Model)`, `.structured(request, Model)`, `_ask(request, Model, what)`,
# `ask_with_tools(agent, request, Model, …)`, `output=Model`
CALL = re.compile(
    r"(?:ask_structured|\.structured|\b_ask|\bask_with_tools)\([^()]*?(?:\([^()]*\))?[^()]*?,\s*([A-Z]\w+)[,)]"
    r"|output=([A-Z]\w+)"
)


def _output_models() -> dict[str, type[BaseModel]]:
    """Every pydantic model the product asks a model for, found in the source itself."""
    found: dict[str, type[BaseModel]] = {}
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="eurekaclaw."):
        path = PACKAGE.joinpath(*info.name.split(".")[1:])
        source_file = path / "__init__.py" if info.ispkg else path.with_suffix(".py")
        if not source_file.is_file():
            continue
        names = {a or b for a, b in CALL.findall(source_file.read_text(encoding="utf-8"))}
        if not names:
            continue
        module = importlib.import_module(info.name)
        for name in names:
            obj = getattr(module, name, None)
            if isinstance(obj, type) and issubclass(obj, BaseModel):
                found[name] = obj
    return found


OUTPUTS = _output_models()


def test_the_source_scan_finds_the_agents_output_models() -> None:
    # a scan that found nothing would make the next test vacuous
    assert {"FormalPlan", "ProofAttempt", "ReviewVerdict", "PaperProse", "ConsistencyVerdict"} <= set(OUTPUTS)


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_every_output_model_gets_a_valid_object(name: str) -> None:
    model = OUTPUTS[name]
    for seed in range(5):
        data, ok = valid_object(model, seed * 1000)
        assert ok, f"{name}: no valid draw for seed {seed}: {data}"
        model.model_validate(data)


def _request(output: type[BaseModel] | None, prompt: str = "prove it") -> LLMRequest:
    return LLMRequest(role="prover", messages=[Message(role="user", content=prompt)], output=output)


class _Bounded(BaseModel):
    kind: str = Field(pattern="^(a|b)$", default="a")
    score: float = Field(ge=0.25, le=0.5)
    count: int = Field(gt=3, lt=6)
    tags: list[str] = Field(min_length=2, max_length=2)
    title: str = Field(min_length=30, max_length=40)
    nested: list[_Bounded] = Field(default_factory=list)  # recursive: must terminate


def test_bounds_lengths_and_recursion_are_respected() -> None:
    for seed in range(20):
        data = fill_schema(_Bounded, random.Random(seed))
        assert 0.25 <= data["score"] <= 0.5 and 3 < data["count"] < 6
        assert len(data["tags"]) == 2 and 30 <= len(data["title"]) <= 40


class _Picky(BaseModel):
    word: str

    @field_validator("word")
    @classmethod
    def _never(cls, value: str) -> str:
        raise ValueError("no word is good enough")


def test_a_model_that_refuses_every_draw_is_reported_not_faked() -> None:
    backend = SchemaBackend(seed=3)
    response = asyncio.run(backend.complete(_request(_Picky)))
    assert backend.invalid == ["_Picky"]
    assert set(response.structured or {}) == {"word"}  # the caller's repair path sees a bad object


def test_replies_are_reproducible_per_seed_and_request() -> None:
    model = OUTPUTS["FormalPlan"]
    one = asyncio.run(SchemaBackend(seed=7).complete(_request(model)))
    again = asyncio.run(SchemaBackend(seed=7).complete(_request(model)))
    other_seed = [asyncio.run(SchemaBackend(seed=s).complete(_request(model))).structured for s in range(8, 14)]
    assert one.structured == again.structured
    assert any(o != one.structured for o in other_seed)
    text = asyncio.run(SchemaBackend(seed=7).complete(_request(None)))
    assert text.text and text.structured is None and text.usage.output_tokens > 0


def test_its_reviews_are_not_evidence() -> None:
    assert SchemaBackend().review_counts_as_evidence() is False


def test_selected_by_name_with_an_optional_integer_seed() -> None:
    settings = Settings(_env_file=None)
    assert choose_backend(settings, "schema") == ("schema", None)
    backend = build_backend(settings, *choose_backend(settings, "schema:42"))
    assert isinstance(backend, SchemaBackend) and backend.seed == 42
    with pytest.raises(BadInputError, match="integer seed"):
        build_backend(settings, "schema", "forty-two")


class _Note(BaseModel):
    text: str
    stop_reason: str = ""


def test_scripted_reply_with_a_text_field_is_the_requested_object() -> None:
    """A structured reply whose model has a `text` field was read as plain response text."""
    response = to_response({"text": "Lemma 2 bounds the pulls.", "stop_reason": "done"}, _request(_Note))
    assert response.structured == {"text": "Lemma 2 bounds the pulls.", "stop_reason": "done"}
    # without such an output model the same dict is still a response description
    plain = to_response({"text": "hello"}, _request(None))
    assert plain.text == "hello" and plain.structured is None
