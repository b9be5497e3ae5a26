"""The `openai_compat` backend: any server that speaks OpenAI chat completions (vLLM, Ollama,
llama.cpp server, OpenRouter, ...), on plain httpx.

Structured output has three modes (OPENAI_COMPAT_STRUCTURED) because servers differ in what they
support: `json_schema` (response_format), `tool` (a forced function call) and `prompt` (the schema
in the system prompt, JSON taken from the text). Failures are classified by HTTP status or httpx
exception type only; the server's message is shown to the user but never inspected.

Each `complete` is one HTTP request: the session client is the one retry layer
(eurekaclaw/http_retry.py). A non-JSON 200, a 200 carrying an error and a reply without choices
are raised as retryable, like 408/409/429/5xx, timeouts and connection failures.

When LLM_STREAM says so (eurekaclaw/llm/streaming.py) the request asks for a stream of
server-sent events with the usage at its end; the stream is assembled into the completion it
stands for (openai_stream.py) and parsed like a whole reply. A server that ignores `stream` and
answers with plain JSON is read as before; a stream that breaks off is retryable (`stream_cut`).
A reply without usage is counted at an upper-bound estimate, never as free.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx

from eurekaclaw.config import Settings
from eurekaclaw.errors import LLMError, LLMFatalError, LLMRetryableError, MissingConfigError
from eurekaclaw.http_retry import parse_retry_after
from eurekaclaw.llm.client import BaseLLMClient
from eurekaclaw.llm.openai_stream import StreamedCompletion
from eurekaclaw.llm.streaming import TokenMeter, stream_cut, wants_stream
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message, ModelTier, Usage
from eurekaclaw.llm.wire import (
    CONNECT_TIMEOUT_S,
    api_name,
    estimated_usage,
    hide_secret,
    json_object_in,
    map_blocks,
    output_tool_name,
    response,
    status_error,
)
from eurekaclaw.redact import register_secret

log = logging.getLogger(__name__)


class _StreamRefused(Exception):
    """HTTP 400/422 to a streamed request before any event: the only case LLM_STREAM=auto retries
    as a whole request (an error inside a stream is the reply's failure, not a refusal)."""

    def __init__(self, error: LLMError) -> None:
        super().__init__(str(error))
        self.error = error
        self.status = getattr(error, "status", None)


# --- the backend -------------------------------------------------------------------------------------


class OpenAICompatBackend(BaseLLMClient):
    name = "openai_compat"

    def __init__(
        self,
        settings: Settings,
        *,
        http_client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        if not settings.openai_compat_base_url or not settings.openai_compat_model:
            raise MissingConfigError("the openai_compat backend needs OPENAI_COMPAT_BASE_URL and OPENAI_COMPAT_MODEL")
        self.settings = settings
        self._stream_refused = False
        self.url = settings.openai_compat_base_url.rstrip("/") + "/chat/completions"
        self.structured_mode = settings.openai_compat_structured
        key = settings.openai_compat_api_key
        self._key = key.get_secret_value() if key is not None else None
        register_secret(self._key)
        self._client = http_client
        self._transport = transport
        self._sleep = sleep

    def model_for(self, tier: ModelTier) -> str:
        main = self.settings.openai_compat_model or ""
        return (self.settings.openai_compat_fast_model or main) if tier == "fast" else main

    def _http(self) -> httpx.AsyncClient:
        # Created on first use, inside the event loop that will use it.
        if self._client is None:
            timeout = httpx.Timeout(self.settings.llm_timeout_s, connect=CONNECT_TIMEOUT_S)
            self._client = httpx.AsyncClient(timeout=timeout, transport=self._transport)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    # --- request ---------------------------------------------------------------------------
    def request_body(self, request: LLMRequest) -> dict[str, Any]:
        system = request.system_text()
        if request.output is not None and self.structured_mode == "prompt":
            schema = json.dumps(request.output_schema(), indent=1)
            instructions = (
                f"Reply with only one JSON object (a {request.output.__name__}) that validates "
                f"against this JSON schema, and nothing else:\n```json\n{schema}\n```"
            )
            system = f"{system}\n\n{instructions}" if system else instructions
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        for message in request.messages:
            messages.extend(_convert_message(message))
        body: dict[str, Any] = {
            "model": request.model or self.model_for(request.tier),
            "messages": messages,
            "max_tokens": request.max_tokens,
        }
        tools = [_function_tool(t.name, t.description, t.input_schema) for t in request.tools]
        if request.output is not None and self.structured_mode == "tool":
            name = output_tool_name(request.output)
            tools.append(
                _function_tool(
                    name,
                    f"Submit the answer as a {request.output.__name__} object.",
                    request.output_schema() or {},
                )
            )
            body["tool_choice"] = {"type": "function", "function": {"name": name}}
        elif request.output is not None and self.structured_mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": api_name(request.output.__name__),
                    "schema": request.output_schema(),
                    "strict": False,
                },
            }
        if tools:
            body["tools"] = tools
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    # --- one attempt (the session client retries) ----------------------------------------------
    async def complete(self, request: LLMRequest) -> LLMResponse:
        body = self.request_body(request)
        if wants_stream(self.settings.llm_stream) and not self._stream_refused:
            try:
                data, tokens_seen = await self._stream(body, request)
            except _StreamRefused as refused:
                # LLM_STREAM=auto only asked for a stream because a terminal watches: a server
                # that refuses `stream` / `stream_options` gets whole requests from now on
                if self.settings.llm_stream != "auto":
                    raise refused.error from None
                self._stream_refused = True
                log.warning(
                    "%s refused a streamed request (HTTP %s); streaming is off for this run "
                    "(LLM_STREAM=false makes it permanent)",
                    self.url,
                    refused.status,
                )
                data, tokens_seen = await self._post(body), 0
        else:
            data, tokens_seen = await self._post(body), 0
        return self._parse(data, request, body["model"], tokens_seen)

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key}"} if self._key else {}

    def _transport_error(self, exc: httpx.HTTPError) -> LLMError:
        if isinstance(exc, httpx.TimeoutException):
            return LLMRetryableError(f"{self.url} timed out ({type(exc).__name__})", reason="timeout")
        if isinstance(exc, httpx.UnsupportedProtocol):
            return LLMFatalError(
                f"OPENAI_COMPAT_BASE_URL {self.settings.openai_compat_base_url!r} is not an http(s) URL"
            )
        return LLMRetryableError(f"cannot reach {self.url} ({type(exc).__name__})", reason="connection")

    async def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            resp = await self._http().post(self.url, json=body, headers=self._headers())
        except httpx.TransportError as exc:
            raise self._transport_error(exc) from None
        return self._checked(resp)

    async def _stream(self, body: dict[str, Any], request: LLMRequest) -> tuple[dict[str, Any], int]:
        """One streamed request: (the completion it delivered, the tokens seen arriving)."""
        body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        meter, got = TokenMeter(), StreamedCompletion()
        try:
            async with self._http().stream("POST", self.url, json=body, headers=self._headers()) as resp:
                if resp.status_code >= 400 or "text/event-stream" not in resp.headers.get("content-type", ""):
                    await resp.aread()  # an error, or a server that ignores `stream`: one whole body
                    if resp.status_code in (400, 422):  # refused before any event: maybe `stream` itself
                        raise _StreamRefused(self._status_error(resp.status_code, _error_text(resp), resp.headers))
                    return self._checked(resp), 0
                await self._read_events(resp, got, meter, request)
        except httpx.TransportError as exc:  # before the response began (the events catch their own)
            raise self._transport_error(exc) from None
        finally:
            meter.finish()
        return self._delivered(got, request, body["model"], meter), meter.tokens

    async def _read_events(
        self, resp: httpx.Response, got: StreamedCompletion, meter: TokenMeter, request: LLMRequest
    ) -> None:
        try:
            async for line in resp.aiter_lines():
                got.feed_line(line, meter)
        except httpx.TransportError as exc:
            got.end_event(meter)
            if got.error is None and got.whole and got.usage is not None:
                return  # the reply and its count arrived; only [DONE] is missing: no paid retry
            billed = self._cut_billing(request, got, meter)
            if isinstance(exc, httpx.TimeoutException):  # the server went quiet mid-reply
                raise LLMRetryableError(
                    f"{self.url} timed out while streaming", reason="timeout", usage=billed
                ) from None
            raise stream_cut(self.url, type(exc).__name__, billed) from None
        got.end_event(meter)

    def _delivered(self, got: StreamedCompletion, request: LLMRequest, model: str, meter: TokenMeter) -> dict[str, Any]:
        """The completion a finished stream stands for, or the failure it is; never an open one."""
        data = got.as_completion(model)
        if got.error is not None:
            try:  # an error event inside the stream is classified like an error in a 200 body
                return self._checked_data(data, {})
            except (LLMRetryableError, LLMFatalError) as err:
                err.usage = err.usage or self._cut_billing(request, got, meter)
                raise
        if not got.choice_seen and got.done and not got.torn:
            return data  # no choice at all: _parse reports a reply without choices
        if not got.whole:
            detail = "an event that is not JSON" if got.torn else "no finish_reason"
            raise stream_cut(self.url, detail, self._cut_billing(request, got, meter))
        return data

    @staticmethod
    def _cut_billing(request: LLMRequest, got: StreamedCompletion, meter: TokenMeter) -> Usage:
        """What a broken stream may have cost: the server's count if it sent one, else fail closed."""
        return _billed(got.usage) or estimated_usage(request, "".join(got.text), meter.tokens)

    def _checked(self, resp: httpx.Response) -> dict[str, Any]:
        """A whole reply's JSON object, or the failure it stands for."""
        if resp.status_code >= 400:
            raise self._status_error(resp.status_code, _error_text(resp), resp.headers)
        try:
            data = resp.json()
        except ValueError:
            raise LLMRetryableError(
                f"{self.url} answered {resp.status_code} with a body that is not JSON",
                reason="bad_body",
                retry_after=parse_retry_after(resp.headers),
            ) from None
        if not isinstance(data, dict):
            raise LLMRetryableError(f"{self.url} answered with JSON that is not an object", reason="bad_body")
        return self._checked_data(data, resp.headers)

    def _checked_data(self, data: dict[str, Any], headers: Mapping[str, str]) -> dict[str, Any]:
        error = data.get("error")
        if error and not data.get("choices"):
            # Some gateways (OpenRouter) report upstream failures in a 200 body with a code.
            code = error.get("code") if isinstance(error, dict) else None
            status = code if isinstance(code, int) else 502
            err = self._status_error(status, _message_of(error), headers)
            if isinstance(err, LLMRetryableError):
                err.reason, err.usage = "error_in_body", _billed(data.get("usage"))
            raise err
        return data

    def _status_error(self, status: int, detail: str, headers: Mapping[str, str]) -> LLMError:
        text = hide_secret(f"{self.url} returned HTTP {status}: {detail}", self._key)
        return status_error(status, text, headers, key_hint="OPENAI_COMPAT_API_KEY")

    # --- response ------------------------------------------------------------------------------
    def _parse(self, data: dict[str, Any], request: LLMRequest, model: str, tokens_seen: int = 0) -> LLMResponse:
        """An OpenAI chat completion as our response: message text → tool calls (the forced
        output tool becomes the structured answer) → structured answer from the text when the
        server has no tool mode → stop reason."""
        choice = self._first_choice(data)
        message = choice.get("message") or {}
        text = _message_text(message)
        structured, calls, bad_arguments = self._tool_calls(message, request)
        if bad_arguments is not None:
            text = text or bad_arguments  # SessionLLM shows the bad arguments in its repair call
        if request.output is not None and structured is None and self.structured_mode != "tool":
            structured = self._structured_from_text(text)
        return response(
            text=text,
            calls=calls,
            structured=structured,
            stop=choice.get("finish_reason") or "stop",
            usage=self._usage(data.get("usage"), request, text, tokens_seen),
            model=str(data.get("model") or model),
        )

    def _usage(self, raw: Any, request: LLMRequest, text: str, tokens_seen: int) -> Usage:
        if isinstance(raw, dict):
            return _usage(raw)
        return estimated_usage(request, text, tokens_seen, who=f"the server at {self.url}")

    def _first_choice(self, data: dict[str, Any]) -> dict[str, Any]:
        choices = data.get("choices") or []
        if not choices or not isinstance(choices[0], dict):
            raise LLMRetryableError(
                f"{self.url} answered without choices", reason="no_choices", usage=_billed(data.get("usage"))
            )
        return choices[0]

    def _tool_calls(
        self,
        message: dict[str, Any],
        request: LLMRequest,
    ) -> tuple[dict[str, Any] | None, list[tuple[str, str, dict[str, Any]]], str | None]:
        """(the forced output tool's arguments, the other tool calls, the forced tool's raw
        arguments when they are not a JSON object)."""
        forced = output_tool_name(request.output) if request.output is not None else None
        structured: dict[str, Any] | None = None
        bad_arguments: str | None = None
        calls: list[tuple[str, str, dict[str, Any]]] = []
        for i, call in enumerate(message.get("tool_calls") or []):
            fn = call.get("function") or {}
            raw = fn.get("arguments") or "{}"
            args = _json_only(raw) if isinstance(raw, str) else (raw if isinstance(raw, dict) else None)
            if forced and self.structured_mode == "tool" and fn.get("name") == forced:
                structured = args
                bad_arguments = str(raw) if args is None else None
                continue
            if args is None:
                log.warning("openai_compat: arguments of tool %s are not a JSON object", fn.get("name"))
                args = {}
            calls.append((call.get("id") or f"call_{i}", fn.get("name", ""), args))
        return structured, calls, bad_arguments

    def _structured_from_text(self, text: str) -> dict[str, Any] | None:
        """The JSON object of a reply in json_schema/json mode (or embedded in prose)."""
        return json_object_in(text)


def _message_text(message: dict[str, Any]) -> str:
    text = message.get("content") or ""
    if isinstance(text, list):  # some servers return content parts
        text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
    return str(text)


# --- conversion helpers ------------------------------------------------------------------------------


def _function_tool(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


def _convert_message(message: Message) -> list[dict[str, Any]]:
    """One of our messages as OpenAI messages: tool results become role "tool" messages, which
    must directly follow the assistant message that asked for them, so they come first."""
    if isinstance(message.content, str):
        return [{"role": message.role, "content": message.content}]
    texts = map_blocks(message, text=lambda b: b.text or None)
    if message.role == "assistant":
        calls = map_blocks(
            message,
            tool_use=lambda b: {
                "id": b.id,
                "type": "function",
                "function": {"name": b.name, "arguments": json.dumps(b.input, ensure_ascii=False)},
            },
        )
        out: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) or None}
        if calls:
            out["tool_calls"] = calls
        return [out]
    converted = map_blocks(
        message,
        tool_result=lambda b: {
            "role": "tool",
            "tool_call_id": b.tool_use_id,
            "content": f"[tool error] {b.content}" if b.is_error else b.content,
        },
    )
    if texts:
        converted.append({"role": "user", "content": "\n".join(texts)})
    return converted


def _json_only(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def _message_of(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("detail") or json.dumps(error)[:300])
    return str(error)[:300]


def _error_text(resp: httpx.Response) -> str:
    try:
        data = resp.json()
    except ValueError:
        return resp.text[:300] or resp.reason_phrase
    if isinstance(data, dict):
        for key in ("error", "message", "detail"):
            if data.get(key):
                return _message_of(data[key])[:300]
    return json.dumps(data)[:300]


def _billed(raw: Any) -> Usage | None:
    """Tokens a server reports for a failed answer, if it reports any."""
    usage = _usage(raw)
    return usage if (usage.input_tokens or usage.output_tokens or usage.cache_read_tokens) else None


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    prompt = int(raw.get("prompt_tokens") or 0)
    details = raw.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
    # OpenAI counts cached tokens inside prompt_tokens; our Usage keeps them apart (as Anthropic does).
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_tokens=cached,
    )
