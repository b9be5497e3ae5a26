"""Reading an OpenAI-style streamed chat completion (server-sent events) back into the whole
completion it stands for, so the openai_compat backend parses both kinds of reply the same way.

A stream is a series of events, each one or more `data:` lines ended by a blank line (the lines of
one event join with "\\n"), and the stream ends with `data: [DONE]`. Each chunk carries a `delta`
of the first choice: pieces of the text, pieces of tool calls (by index: the id and name come once,
the arguments in pieces), and at the end a `finish_reason`. With `stream_options.include_usage`
the server adds a last chunk with the usage and no choices.

Nothing fails open: a stream is whole only when a finish_reason arrived and every event parsed;
an `event: error`, a chunk with an `error` or `object: "error"` is an error; a stream that
delivered no choice at all is a reply without choices.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from eurekaclaw.llm.streaming import TokenMeter


def _new_slot(call_id: Any = None) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "", "arguments": ""}}


@dataclass
class StreamedCompletion:
    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    model: str | None = None
    error: Any = None
    done: bool = False  # [DONE] seen
    torn: bool = False  # an event whose data is not JSON: the stream is broken
    choice_seen: bool = False
    _event: str = ""
    _data: list[str] = field(default_factory=list)

    @property
    def whole(self) -> bool:
        return self.finish_reason is not None and not self.torn

    def feed_line(self, line: str, meter: TokenMeter) -> None:
        """One line of the event stream; a blank line ends an event, other fields are ignored."""
        line = line.rstrip("\r")
        if not line:
            self.end_event(meter)
        elif line.startswith("data:"):
            value = line[5:]
            self._data.append(value[1:] if value.startswith(" ") else value)
        elif line.startswith("event:"):
            self._event = line[6:].strip()

    def end_event(self, meter: TokenMeter) -> None:
        """Dispatch the buffered event (also called when the stream ends without a blank line)."""
        event, data = self._event, self._data
        self._event, self._data = "", []
        if not data:
            return
        payload = "\n".join(data).strip()
        if payload == "[DONE]":
            self.done = True
            return
        try:
            chunk = json.loads(payload)
        except json.JSONDecodeError:
            chunk = None
        if event == "error":
            self.error = self.error or _error_of(chunk) or payload or "error event"
        elif not isinstance(chunk, dict):
            self.torn = True  # a torn or foreign event: never read as a keep-alive
        else:
            self.feed_chunk(chunk, meter)

    def feed_chunk(self, chunk: dict[str, Any], meter: TokenMeter) -> None:
        if chunk.get("error") or chunk.get("object") == "error":
            self.error = self.error or _error_of(chunk)
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        self.model = self.model or chunk.get("model")
        choices = chunk.get("choices") or []
        first = choices[0] if choices and isinstance(choices[0], dict) else None
        if first is None:
            return
        self.choice_seen = True
        delta = first.get("delta") or {}
        piece = delta.get("content")
        if isinstance(piece, str) and piece:
            self.text.append(piece)
            meter.add(piece, tokens=1)  # these servers send about one token a chunk
        for call in delta.get("tool_calls") or []:
            if isinstance(call, dict):
                self._feed_call(call, meter)
        if first.get("finish_reason"):
            self.finish_reason = first["finish_reason"]

    def _slot_for(self, call: dict[str, Any]) -> dict[str, Any]:
        index = call.get("index")
        if isinstance(index, int):
            return self.calls.setdefault(index, _new_slot())
        # no index: a new id opens a new call, pieces without an id continue the last one
        last = max(self.calls) if self.calls else None
        call_id = call.get("id")
        if last is None or (call_id and self.calls[last]["id"] and call_id != self.calls[last]["id"]):
            last = (last + 1) if last is not None else 0
            self.calls[last] = _new_slot()
        return self.calls[last]

    def _feed_call(self, call: dict[str, Any], meter: TokenMeter) -> None:
        slot = self._slot_for(call)
        slot["id"] = slot["id"] or call.get("id")
        fn = call.get("function") or {}
        slot["function"]["name"] += fn.get("name") or ""
        arguments = fn.get("arguments") or ""
        if not isinstance(arguments, str):  # some servers send the arguments as an object
            arguments = json.dumps(arguments, ensure_ascii=False)
        slot["function"]["arguments"] += arguments
        if arguments:
            meter.add(arguments, tokens=1)

    def as_completion(self, model: str) -> dict[str, Any]:
        """The whole chat completion this stream delivered, in the non-streamed shape."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text)}
        if self.calls:
            message["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        data: dict[str, Any] = {"model": self.model or model, "choices": []}
        if self.choice_seen:  # no choice chunk at all is a reply without choices, never an empty one
            data["choices"] = [{"index": 0, "message": message, "finish_reason": self.finish_reason or "stop"}]
        if self.usage is not None:
            data["usage"] = self.usage
        if self.error is not None:
            data = {"error": self.error, **({"usage": self.usage} if self.usage else {})}
        return data


def _error_of(chunk: Any) -> Any:
    """The error an error chunk stands for: its `error` member, or the chunk itself (vLLM's shape)."""
    if isinstance(chunk, dict):
        return chunk.get("error") or chunk
    return None
