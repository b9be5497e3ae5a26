"""The `scripted` backend: deterministic replies for tests and demos, no model involved.

Drive it with rules (a YAML/JSON file or a list) or a Python function, in the spirit of
pydantic-ai's FunctionModel. A rule matches on the calling role, the requested output model,
a substring or a regex of the prompt; its replies are used in order and the last one repeats
(unless `once: true`, after which the rule is spent). See docs/llm-backends.md.

It streams like a real backend when asked (`stream=True`, or `"auto"`: when the live display
watches, as LLM_STREAM=auto does): the reply's text is fed to the token meter in `chunk_chars`
pieces, so tests drive the streaming path deterministically. A rule's `cut_stream_after: N` breaks
its first streamed reply off after N chunks with a retryable `stream_cut` failure.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from eurekaclaw.errors import BadInputError, LLMFatalError, LLMRetryableError
from eurekaclaw.llm.client import BaseLLMClient
from eurekaclaw.llm.streaming import TokenMeter, stream_cut, wants_stream
from eurekaclaw.llm.types import LLMRequest, LLMResponse, ModelTier, ToolUseBlock, Usage

Responder = Callable[[LLMRequest], Any | Awaitable[Any]]


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _is_output_object(reply: dict[str, Any], request: LLMRequest) -> bool:
    """A dict whose keys all belong to the requested output model and that the model accepts
    is that object, even when a field is called `text` or `stop_reason`; response fields are
    recognised only otherwise."""
    if request.output is None or {"structured", "tool_calls"} & set(reply):
        return False
    if not set(reply) <= set(request.output.model_fields):
        return False
    try:
        request.output.model_validate(reply)
    except ValidationError:
        return False
    return True


def to_response(reply: Any, request: LLMRequest) -> LLMResponse:
    """Accept an LLMResponse, a str (text), or a dict (response fields, else structured data)."""
    if isinstance(reply, LLMResponse):
        resp = reply
    elif isinstance(reply, str):
        resp = LLMResponse(text=reply)
    elif isinstance(reply, dict):
        fields = {"text", "structured", "tool_calls", "stop_reason"}
        if set(reply) & fields and not _is_output_object(reply, request):
            calls = [
                ToolUseBlock(id=c.get("id") or f"call_{i}", name=c["name"], input=c.get("input", {}))
                for i, c in enumerate(reply.get("tool_calls") or [])
            ]
            resp = LLMResponse(
                text=reply.get("text", ""),
                structured=reply.get("structured"),
                tool_calls=calls,
                stop_reason=reply.get("stop_reason") or ("tool_use" if calls else "end_turn"),
            )
        else:
            resp = LLMResponse(structured=reply)
    else:
        raise LLMFatalError(f"scripted reply of unsupported type {type(reply).__name__}")
    if resp.usage == Usage():
        out_chars = len(resp.text) + len(json.dumps(resp.structured or {}))
        resp.usage = Usage(
            input_tokens=(len(request.system_text()) + len(request.prompt_text())) // 4 + 1,
            output_tokens=out_chars // 4 + 1,
        )
    resp.model = resp.model or request.model or "scripted"
    return resp


class Rule:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.roles = _as_list(spec.get("role"))
        self.outputs = _as_list(spec.get("output"))
        self.contains = _as_list(spec.get("contains"))
        self.regex = re.compile(spec["regex"], re.DOTALL) if spec.get("regex") else None
        self.replies = list(spec.get("replies") or _as_list(spec.get("reply")))
        self.once = bool(spec.get("once", False))
        self.delay_s = float(spec.get("delay_s", 0.0))
        cut = spec.get("cut_stream_after")
        self.cut_stream_after = int(cut) if cut is not None else None
        self.used = 0
        if not self.replies:
            raise BadInputError("a scripted rule needs `reply` or `replies`")

    def matches(self, request: LLMRequest) -> bool:
        if self.once and self.used >= len(self.replies):
            return False
        if self.roles and request.role not in self.roles:
            return False
        if self.outputs and request.output_name() not in self.outputs:
            return False
        text = request.system_text() + "\n" + request.prompt_text()
        if any(c not in text for c in self.contains):
            return False
        return not (self.regex and not self.regex.search(text))

    def next_reply(self) -> Any:
        reply = self.replies[min(self.used, len(self.replies) - 1)]
        self.used += 1
        return reply


class ScriptedBackend(BaseLLMClient):
    name = "scripted"

    def __init__(
        self,
        rules: list[dict[str, Any]] | None = None,
        responder: Responder | None = None,
        default: Any = None,
        model: str = "scripted",
        stream: bool | str = "auto",
        chunk_chars: int = 8,
    ) -> None:
        self.model = model  # a second script with another name plays an independent reviewer
        self.rules = [Rule(r) for r in (rules or [])]
        self.responder = responder
        self.default = default
        self.stream = {"true": True, "false": False}.get(stream, stream) if isinstance(stream, str) else stream
        self.chunk_chars = max(1, chunk_chars)
        self.calls: list[LLMRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0

    def model_for(self, tier: ModelTier) -> str:
        return f"{self.model}-{tier}"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.calls.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply: Any = None
            delay = 0.0
            matched: Rule | None = None
            for rule in self.rules:
                if rule.matches(request):
                    reply, delay, matched = rule.next_reply(), rule.delay_s, rule
                    break
            if reply is None and self.responder is not None:
                reply = self.responder(request)
                if inspect.isawaitable(reply):
                    reply = await reply
            if reply is None:
                reply = self.default
            if reply is None:
                raise LLMFatalError(
                    f"scripted backend has no reply for role {request.role!r} "
                    f"(output {request.output_name()}): {request.prompt_text()[:120]!r}"
                )
            if delay:
                await asyncio.sleep(delay)
            else:
                await asyncio.sleep(0)
            response = to_response(reply, request)
            if self.stream is True or (self.stream == "auto" and wants_stream("auto")):
                await self._stream_reply(response, request, matched)
            return response
        finally:
            self.in_flight -= 1

    async def _stream_reply(self, response: LLMResponse, request: LLMRequest, matched: Rule | None) -> None:
        """Stream the reply, cut where the rule says, once: the retry gets this same reply whole."""
        cut = matched.cut_stream_after if matched else None
        if matched is None or cut is None:
            await self._stream(response, request, None)
            return
        matched.cut_stream_after = None
        try:
            await self._stream(response, request, cut)
        except LLMRetryableError:
            matched.used -= 1  # the cut reply never arrived, so it is still the rule's next one
            raise

    async def _stream(self, response: LLMResponse, request: LLMRequest, cut_after: int | None) -> None:
        """Deliver the reply's text (or its JSON) in chunks, as a streaming server would."""
        body = response.text or json.dumps(response.structured or {}, ensure_ascii=False)
        pieces = [body[i : i + self.chunk_chars] for i in range(0, len(body), self.chunk_chars)]
        meter = TokenMeter(interval_s=0.0)  # every chunk reported: deterministic for tests
        try:
            for i, piece in enumerate(pieces):
                if cut_after is not None and i >= cut_after:
                    billed = Usage(input_tokens=response.usage.input_tokens, output_tokens=meter.tokens)
                    raise stream_cut(f"scripted {request.role}", f"cut after {i} chunks", billed)
                meter.add(piece)
                await asyncio.sleep(0)
        finally:
            meter.finish()

    @classmethod
    def from_file(cls, path: Path) -> ScriptedBackend:
        """Rules from .yaml/.yml/.json, or a `respond(request)` function from a .py file."""
        path = Path(path)
        if not path.is_file():
            what = "not found" if not path.exists() else "not a regular file"
            raise BadInputError(f"scripted LLM file {what}: {path}")
        if path.suffix == ".py":
            spec = importlib.util.spec_from_file_location(f"eurekaclaw_script_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise BadInputError(f"cannot load scripted responder from {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            responder = getattr(module, "respond", None)
            if not callable(responder):
                raise BadInputError(f"{path} must define respond(request)")
            return cls(responder=responder, model=str(getattr(module, "MODEL", "scripted")))
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise BadInputError(f"scripted LLM file {path} is not valid YAML/JSON: {exc}") from None
        if isinstance(data, list):
            data = {"rules": data}
        if not isinstance(data, dict):
            raise BadInputError(f"scripted LLM file {path} must hold a list of rules")
        return cls(
            rules=data.get("rules") or [],
            default=data.get("default"),
            model=str(data.get("model") or "scripted"),
            stream=data.get("stream", "auto"),
            chunk_chars=int(data.get("chunk_chars") or 8),
        )
