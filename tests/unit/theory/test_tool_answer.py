"""A prover's answer after tool calls gets the same checks as a plain structured answer: a reply
that copies the prompt's `"<…>"` placeholder is sent back for repair, not accepted."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel

from eurekaclaw.agents.theory.tool_answer import ask_with_tools
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message
from eurekaclaw.tools.base import BaseTool, ToolRegistry


class Answer(BaseModel):
    proof: str


class Echo(BaseTool):
    name = "echo"
    description = "returns its input"

    def input_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"x": {"type": "string"}}}

    async def call(self, x: str = "") -> Any:
        return {"x": x}


class FakeAgent:
    def __init__(self, final_text: str) -> None:
        self.final_text = final_text
        self.repairs: list[LLMRequest] = []
        registry = ToolRegistry()
        registry.register(Echo())
        self.ctx = SimpleNamespace(tools=registry)
        self.client = SimpleNamespace(complete=self._complete, backend=SimpleNamespace(offers_tools=True))

    async def _complete(self, request: LLMRequest) -> LLMResponse:
        return LLMResponse(text=self.final_text)

    async def ask_structured(self, request: LLMRequest, output: type[BaseModel]) -> BaseModel:
        self.repairs.append(request)
        return output.model_validate({"proof": "By the triangle inequality, |a+b| <= |a| + |b| for all reals."})


def request() -> LLMRequest:
    return LLMRequest(
        role="prover",
        messages=[Message(role="user", content='Prove |a+b| <= |a|+|b|. Reply {"proof": "<the full proof>"}')],
        max_tokens=512,
    )


async def test_an_echoed_placeholder_after_tool_use_is_repaired_not_accepted() -> None:
    agent = FakeAgent('{"proof": "<the full proof>"}')
    answer = await ask_with_tools(agent, request(), Answer, ["echo"])  # type: ignore[arg-type]
    assert len(agent.repairs) == 1 and answer.proof.startswith("By the triangle inequality")


async def test_a_real_answer_after_tool_use_is_taken_as_is() -> None:
    agent = FakeAgent('{"proof": "Square both sides; 2ab <= 2|a||b| holds."}')
    answer = await ask_with_tools(agent, request(), Answer, ["echo"])  # type: ignore[arg-type]
    assert agent.repairs == [] and answer.proof == "Square both sides; 2ab <= 2|a||b| holds."
