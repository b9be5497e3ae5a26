"""Requests and responses of the LLM layer, independent of any provider."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field


class TextBlock(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ToolUseBlock(BaseModel):
    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ToolResultBlock(BaseModel):
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False


ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock


class Message(BaseModel):
    role: Literal["user", "assistant"]
    content: str | list[ContentBlock]

    def blocks(self) -> list[ContentBlock]:
        """The content as blocks (plain-string content is one text block)."""
        return [TextBlock(text=self.content)] if isinstance(self.content, str) else list(self.content)

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        parts = []
        for block in self.content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            elif isinstance(block, ToolResultBlock):
                parts.append(block.content)
        return "\n".join(parts)


class ToolSpec(BaseModel):
    name: str
    description: str
    input_schema: dict[str, Any]


ModelTier = Literal["main", "fast"]


class LLMRequest(BaseModel):
    """One call. `system_stable` is the cacheable prefix (role instructions), `system_dynamic`
    the per-call part (memories, skills). `output` asks for structured output of that model."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    role: str
    system_stable: str = ""
    system_dynamic: str = ""
    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=list)
    output: type[BaseModel] | None = None
    max_tokens: int = 4096
    temperature: float | None = None
    tier: ModelTier = "main"
    model: str | None = None  # filled in by the session client from the tier
    stage: str | None = None  # filled in by the session client
    lemma_id: str | None = None

    def system_text(self) -> str:
        return "\n\n".join(p for p in (self.system_stable, self.system_dynamic) if p)

    def prompt_text(self) -> str:
        return "\n\n".join(m.text() for m in self.messages)

    def output_name(self) -> str | None:
        return self.output.__name__ if self.output is not None else None

    def output_schema(self) -> dict[str, Any] | None:
        return self.output.model_json_schema() if self.output is not None else None

    def fingerprint(self) -> str:
        """A hash of everything that decides the reply; the replay backend matches on it."""
        body = {
            "role": self.role,
            "system": self.system_text(),
            "messages": [m.model_dump(mode="json") for m in self.messages],
            "tools": [t.model_dump(mode="json") for t in self.tools],
            "output": self.output_name(),
            "tier": self.tier,
        }
        raw = json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(raw).hexdigest()

    def log_view(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "stage": self.stage,
            "lemma_id": self.lemma_id,
            "tier": self.tier,
            "model": self.model,
            "system_stable": self.system_stable,
            "system_dynamic": self.system_dynamic,
            "messages": [m.model_dump(mode="json") for m in self.messages],
            "tools": [t.name for t in self.tools],
            "output": self.output_name(),
            "max_tokens": self.max_tokens,
        }


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


StopReason = Literal["end_turn", "max_tokens", "tool_use", "stop_sequence", "error"]


class LLMResponse(BaseModel):
    text: str = ""
    tool_calls: list[ToolUseBlock] = Field(default_factory=list)
    structured: dict[str, Any] | None = None
    stop_reason: StopReason = "end_turn"
    usage: Usage = Field(default_factory=Usage)
    model: str = ""

    def assistant_message(self) -> Message:
        blocks: list[ContentBlock] = []
        if self.text:
            blocks.append(TextBlock(text=self.text))
        blocks.extend(self.tool_calls)
        return Message(role="assistant", content=blocks or self.text)


@runtime_checkable
class LLMClient(Protocol):
    """What every backend implements. Errors are raised as eurekaclaw.errors.LLM*Error."""

    name: str

    def model_for(self, tier: ModelTier) -> str: ...

    async def complete(self, request: LLMRequest) -> LLMResponse: ...
