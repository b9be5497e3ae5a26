from __future__ import annotations

import json
from typing import Any

from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.types import LLMRequest, Message, TextBlock, ToolResultBlock, ToolUseBlock
from eurekaclaw.tools.base import (
    RESULT_CAP_CHARS,
    BaseTool,
    ToolRegistry,
    run_tool_loop,
    trim_history,
)


class Adder(BaseTool):
    name = "add"
    description = "add two numbers"

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        }

    async def call(self, a: float, b: float) -> Any:
        return {"sum": a + b}


class Broken(BaseTool):
    name = "broken"
    description = "always fails"

    def input_schema(self) -> dict[str, Any]:
        return {"type": "object"}

    async def call(self, **kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")


class Huge(BaseTool):
    name = "huge"
    description = "returns a lot"

    def input_schema(self) -> dict[str, Any]:
        return {"type": "object"}

    async def call(self, **kwargs: Any) -> Any:
        return {"data": "x" * (RESULT_CAP_CHARS * 3)}


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    for tool in (Adder(), Broken(), Huge()):
        reg.register(tool)
    return reg


async def test_registry_reports_errors_to_the_model_instead_of_raising() -> None:
    reg = registry()
    text, err = await reg.call("add", {"a": 2, "b": 3})
    assert json.loads(text) == {"sum": 5} and not err
    text, err = await reg.call("nope", {})
    assert err and "unknown tool" in json.loads(text)["error"]
    text, err = await reg.call("add", {"a": 1})
    assert err and "bad arguments" in json.loads(text)["error"]
    text, err = await reg.call("broken", {})
    assert err and "disk on fire" in json.loads(text)["error"]
    text, err = await reg.call("huge", {})
    assert not err and len(text) <= RESULT_CAP_CHARS and json.loads(text)["truncated"] is True
    assert Adder().to_anthropic_tool_def()["input_schema"]["required"] == ["a", "b"]


async def test_tool_loop_feeds_results_back_until_an_answer() -> None:
    def respond(request: LLMRequest) -> Any:
        last = request.messages[-1]
        if isinstance(last.content, str):
            return {"tool_calls": [{"id": "c1", "name": "add", "input": {"a": 2, "b": 40}}]}
        result = json.loads(last.content[0].content)
        return f"The sum is {result['sum']}."

    backend = ScriptedBackend(responder=respond)
    request = LLMRequest(
        role="prover", messages=[Message(role="user", content="What is 2+40?")], tools=registry().specs()
    )
    seen: list[str] = []
    response, history = await run_tool_loop(
        backend.complete, request, registry(), on_tool_call=lambda c, t, e: seen.append(c.name)
    )
    assert response.text == "The sum is 42."
    assert seen == ["add"]
    assert [m.role for m in history] == ["user", "assistant", "user", "assistant"]
    assert isinstance(history[2].content[0], ToolResultBlock) and history[2].content[0].tool_use_id == "c1"


async def test_tool_loop_asks_for_an_answer_without_tools_after_max_turns() -> None:
    backend = ScriptedBackend(
        responder=lambda r: (
            "final" if not r.tools else {"tool_calls": [{"id": "x", "name": "add", "input": {"a": 1, "b": 1}}]}
        )
    )
    request = LLMRequest(role="prover", messages=[Message(role="user", content="loop")], tools=registry().specs())
    response, _ = await run_tool_loop(backend.complete, request, registry(), max_turns=3)
    assert response.text == "final"
    assert len(backend.calls) == 4 and backend.calls[-1].tools == []


def test_trimming_keeps_tool_use_and_result_together() -> None:
    msgs = [Message(role="user", content="task " + "q" * 100)]
    for i in range(10):
        msgs.append(
            Message(
                role="assistant", content=[TextBlock(text="t" * 200), ToolUseBlock(id=f"c{i}", name="add", input={})]
            )
        )
        msgs.append(Message(role="user", content=[ToolResultBlock(tool_use_id=f"c{i}", content="r" * 200)]))
    trimmed = trim_history(msgs, max_chars=3000)
    assert trimmed[0] == msgs[0]
    assert len(trimmed) < len(msgs)
    rest = trimmed[1:]
    assert rest[0].role == "assistant"
    for assistant, user in zip(rest[::2], rest[1::2], strict=True):
        use = next(b for b in assistant.content if isinstance(b, ToolUseBlock))
        assert user.content[0].tool_use_id == use.id
    assert rest[-1] == msgs[-1]  # the newest exchange survives
