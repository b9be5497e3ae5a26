"""Reading an OpenAI-style streamed chat completion (server-sent events) back into the whole
completion it stands for, so the openai_compat backend parses both kinds of reply the same way.

A stream is a series of `data: {chunk}` lines ended by `data: [DONE]`. Each chunk carries a
`delta` of the first choice: pieces of the text, pieces of tool calls (by index: the id and name
come once, the arguments in pieces), and at the end a `finish_reason`. With
`stream_options.include_usage` the server adds a last chunk with the usage and no choices.
A stream is whole when it ended with [DONE] or a finish_reason; otherwise it was cut.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from eurekaclaw.llm.streaming import TokenMeter


@dataclass
class StreamedCompletion:
    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    model: str | None = None
    error: Any = None
    done: bool = False  # [DONE] seen

    @property
    def whole(self) -> bool:
        return self.done or self.finish_reason is not None

    def feed_line(self, line: str, meter: TokenMeter) -> None:
        """One line of the event stream; lines other than `data:` (comments, ids) are ignored."""
        if not line.startswith("data:"):
            return
        payload = line[5:].strip()
        if payload == "[DONE]":
            self.done = True
            return
        try:
            chunk = json.loads(payload)
        except json.JSONDecodeError:
            return  # a keep-alive or a vendor's note; a torn stream shows as not whole
        if isinstance(chunk, dict):
            self.feed_chunk(chunk, meter)

    def feed_chunk(self, chunk: dict[str, Any], meter: TokenMeter) -> None:
        if chunk.get("error"):
            self.error = chunk["error"]
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        self.model = self.model or chunk.get("model")
        choices = chunk.get("choices") or []
        first = choices[0] if choices and isinstance(choices[0], dict) else None
        if first is None:
            return
        delta = first.get("delta") or {}
        piece = delta.get("content")
        if isinstance(piece, str) and piece:
            self.text.append(piece)
            meter.add(piece, tokens=1)  # these servers send about one token a chunk
        for i, call in enumerate(delta.get("tool_calls") or []):
            self._feed_call(call, i, meter)
        if first.get("finish_reason"):
            self.finish_reason = first["finish_reason"]

    def _feed_call(self, call: dict[str, Any], position: int, meter: TokenMeter) -> None:
        index = call.get("index", position)
        slot = self.calls.setdefault(index, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}})
        slot["id"] = slot["id"] or call.get("id")
        fn = call.get("function") or {}
        slot["function"]["name"] += fn.get("name") or ""
        arguments = fn.get("arguments") or ""
        slot["function"]["arguments"] += arguments
        if arguments:
            meter.add(arguments, tokens=1)

    def as_completion(self, model: str) -> dict[str, Any]:
        """The whole chat completion this stream delivered, in the non-streamed shape."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text)}
        if self.calls:
            message["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        data: dict[str, Any] = {
            "model": self.model or model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason or "stop"}],
        }
        if self.usage is not None:
            data["usage"] = self.usage
        if self.error is not None:
            data = {"error": self.error, **({"usage": self.usage} if self.usage else {})}
        return data
