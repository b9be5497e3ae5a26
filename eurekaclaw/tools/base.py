"""BaseTool, ToolRegistry and the agentic tool-use loop.

Tool results are always JSON text, capped in size, so one huge result cannot flood a prompt.
"""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from eurekaclaw.errors import LLMOutputError
from eurekaclaw.llm.types import (
    ContentBlock,
    LLMRequest,
    LLMResponse,
    Message,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)

log = logging.getLogger(__name__)

RESULT_CAP_CHARS = 12_000


class BaseTool(ABC):
    name: str = ""
    description: str = ""

    @abstractmethod
    def input_schema(self) -> dict[str, Any]:
        """JSON schema of the tool's input object."""

    @abstractmethod
    async def call(self, *args: Any, **kwargs: Any) -> Any:
        """Run the tool with the input object's fields as keyword arguments; the result must
        be JSON-serialisable. (A subclass names its own parameters.)"""

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, input_schema=self.input_schema())

    def to_anthropic_tool_def(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema()}


def cap_json(value: Any, limit: int = RESULT_CAP_CHARS) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= limit:
        return text
    return json.dumps({"truncated": True, "original_chars": len(text), "head": text[: limit - 200]})


class ToolRegistry:
    def __init__(self) -> None:
        self._tools: dict[str, BaseTool] = {}

    def register(self, tool: BaseTool) -> None:
        if not tool.name:
            raise ValueError("a tool needs a name")
        self._tools[tool.name] = tool

    def get(self, name: str) -> BaseTool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def specs(self, names: list[str] | None = None) -> list[ToolSpec]:
        chosen = names if names is not None else self.names()
        return [self._tools[n].spec() for n in chosen if n in self._tools]

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """(JSON result text, is_error). Errors are reported to the model, never raised."""
        tool = self._tools.get(name)
        if tool is None:
            return cap_json({"error": f"unknown tool {name!r}", "available": self.names()}), True
        try:
            result = await tool.call(**(arguments or {}))
        except TypeError as exc:
            return cap_json({"error": f"bad arguments for {name}: {exc}"}), True
        except Exception as exc:  # a tool failure is information for the model, not a crash
            log.info("tool %s failed: %s", name, exc)
            return cap_json({"error": f"{type(exc).__name__}: {exc}"}), True
        return cap_json(result), False


def trim_history(messages: list[Message], max_chars: int) -> list[Message]:
    """Drop the oldest exchanges after the first user message until the history fits, never
    separating an assistant tool_use message from the user message holding its tool_result."""

    def size(msgs: list[Message]) -> int:
        return sum(len(m.model_dump_json()) for m in msgs)

    if size(messages) <= max_chars or len(messages) <= 3:
        return messages
    head, rest = messages[:1], messages[1:]
    # rest alternates assistant/user; remove pairs from the front
    while size(head + rest) > max_chars and len(rest) > 2:
        rest = rest[2:]
    if rest and rest[0].role != "assistant":
        rest = rest[1:]
    return head + rest


async def run_tool_loop(
    complete: Callable[[LLMRequest], Any],
    request: LLMRequest,
    registry: ToolRegistry,
    *,
    max_turns: int = 8,
    max_history_chars: int = 120_000,
    on_tool_call: Callable[[ToolUseBlock, str, bool], None] | None = None,
) -> tuple[LLMResponse, list[Message]]:
    """Call the model, run the tools it asks for, feed the results back, until it stops asking
    (or `max_turns` is reached, when it is asked for its final answer without tools)."""
    messages = list(request.messages)
    for turn in range(max_turns + 1):
        final_turn = turn == max_turns
        req = request.model_copy(
            update={"messages": trim_history(messages, max_history_chars), "tools": [] if final_turn else request.tools}
        )
        response: LLMResponse = await complete(req)
        if not response.tool_calls or final_turn:
            return response, messages + [response.assistant_message()]
        messages.append(response.assistant_message())
        results: list[ContentBlock] = []
        for call in response.tool_calls:
            text, is_error = await registry.call(call.name, call.input)
            if on_tool_call:
                on_tool_call(call, text, is_error)
            results.append(ToolResultBlock(tool_use_id=call.id, content=text, is_error=is_error))
        messages.append(Message(role="user", content=results))
    raise LLMOutputError("tool loop ended without an answer", kind="tool_loop")
