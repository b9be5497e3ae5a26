"""openai_compat streaming over real HTTP: OpenAICompatBackend → httpx → the fault server's
server-sent events (tests/fault_server.py). The assembled reply, usage.json and llm_log.jsonl must
be what a whole reply gives; a cut stream is retried and recorded; a server that ignores
`stream` still works; a stream without usage is never counted as free."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fault_server import FAULT_KINDS, STREAM_FAULT_KINDS, FaultServer, completion
from pydantic import BaseModel

from eurekaclaw.config import Settings
from eurekaclaw.errors import LLMFatalError, LLMRetryableError
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.openai_compat import OpenAICompatBackend
from eurekaclaw.llm.prices import Price
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.streaming import watching
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.store.files import read_jsonl

PROOF = "By induction on n: the base case is trivial and the step uses the hypothesis."


class Bound(BaseModel):
    lemma: str
    constant: float


class Sleeps(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def session(srv: FaultServer, tmp_path: Path, stream: str = "true", retries: int = 3, **ledger: Any) -> SessionLLM:
    settings = Settings(
        openai_compat_base_url=srv.base_url,
        openai_compat_model="my-model",
        llm_timeout_s=2.0,
        llm_stream=stream,
        openai_compat_api_key="sk-or-v1-abcdef0123456789abcdef",
    )
    return SessionLLM(
        OpenAICompatBackend(settings),
        UsageLedger(tmp_path / "usage.json", **ledger),
        tmp_path / "llm_log.jsonl",
        max_retries=retries,
        retry_base_s=1.0,
        sleep=Sleeps(),
    )


def ask() -> LLMRequest:
    return LLMRequest(role="prover", messages=[Message(role="user", content="Prove lemma 3.")], max_tokens=256)


async def run(llm: SessionLLM, request: LLMRequest) -> Any:
    try:
        return await llm.complete(request)
    finally:
        await llm.backend.aclose()  # type: ignore[attr-defined]


def usage_json(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "usage.json").read_text())


async def test_stream_is_assembled_reported_and_priced_from_the_final_usage_chunk(tmp_path: Path) -> None:
    seen: list[int] = []
    with FaultServer(reply=lambda body, call: completion(PROOF, prompt=120, out=31)) as srv:
        llm = session(srv, tmp_path)
        with watching(seen.append):
            response = await run(llm, ask())
    assert srv.bodies[0]["stream"] is True and srv.bodies[0]["stream_options"] == {"include_usage": True}
    assert response.text == PROOF and response.stop_reason == "end_turn"
    assert response.usage.input_tokens == 120 and response.usage.output_tokens == 31
    usage = usage_json(tmp_path)
    assert usage["calls"] == 1 and usage["total"]["input_tokens"] == 120 and usage["total"]["output_tokens"] == 31
    # one token a chunk, reported as it grows; the last report is the whole count
    chunks = -(-len(PROOF) // 3)
    assert seen and seen[-1] == chunks and seen == sorted(seen)
    logged = read_jsonl(tmp_path / "llm_log.jsonl")
    assert logged[0]["response"]["text"] == PROOF and "sk-or-v1-abcdef" not in json.dumps(logged)


async def test_streamed_structured_output_in_each_mode(tmp_path: Path) -> None:
    args = json.dumps({"lemma": "L3", "constant": 2.5})

    def reply(body: dict[str, Any], call: str | None) -> dict[str, Any]:
        out = completion(args)
        if body.get("tool_choice"):  # tool mode: the answer is the forced call's arguments, in pieces
            name = body["tool_choice"]["function"]["name"]
            out["choices"][0]["message"] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": args}}],
            }
            out["choices"][0]["finish_reason"] = "tool_calls"
        return out

    for mode in ("json_schema", "tool", "prompt"):
        with FaultServer(reply=reply) as srv:
            llm = session(srv, tmp_path / mode)
            llm.backend.structured_mode = mode  # type: ignore[attr-defined]
            try:
                bound = await llm.structured(ask(), Bound)
            finally:
                await llm.backend.aclose()  # type: ignore[attr-defined]
        assert bound == Bound(lemma="L3", constant=2.5), mode
        assert srv.bodies[0]["stream"] is True


async def test_a_stream_cut_mid_way_is_retried_and_recorded_with_its_cost(tmp_path: Path) -> None:
    with FaultServer(plan=["stream_cut", None], reply=lambda body, call: completion(PROOF)) as srv:
        llm = session(srv, tmp_path)
        response = await run(llm, ask())
    assert response.text == PROOF
    assert [k for _, k in srv.log] == ["stream_cut", "ok"]
    usage = usage_json(tmp_path)
    assert usage["attempts"] == 2 and usage["failed_attempts"] == 1
    assert usage["retries_by_reason"] == {"stream_cut": 1}
    first = read_jsonl(tmp_path / "llm_log.jsonl")[0]
    assert first["retry_reason"] == "stream_cut" and first["response"] is None
    assert "broke off" in first["error"]
    # the tokens the cut stream may have cost are counted (fail closed), not dropped
    assert first["billed_usage"]["input_tokens"] > 0 and first["billed_usage"]["output_tokens"] > 0
    assert usage["total"]["input_tokens"] > 100


async def test_an_error_event_inside_a_stream_is_classified_by_its_code_and_retried(tmp_path: Path) -> None:
    with FaultServer(plan=["stream_error", None], reply=lambda body, call: completion(PROOF)) as srv:
        response = await run(session(srv, tmp_path), ask())
    assert response.text == PROOF
    assert usage_json(tmp_path)["retries_by_reason"] == {"error_in_body": 1}


async def test_a_server_that_ignores_stream_answers_with_plain_json(tmp_path: Path) -> None:
    seen: list[int] = []
    with FaultServer(ignore_stream=True, reply=lambda body, call: completion(PROOF, prompt=90, out=12)) as srv:
        llm = session(srv, tmp_path)
        with watching(seen.append):
            response = await run(llm, ask())
    assert srv.bodies[0]["stream"] is True
    assert response.text == PROOF and response.usage.output_tokens == 12
    assert usage_json(tmp_path)["total"]["input_tokens"] == 90


async def test_a_stream_without_usage_is_counted_high_never_free(tmp_path: Path) -> None:
    price = Price(input=1.0, output=2.0, cache_write=1.25, cache_read=1.0)
    with FaultServer(stream_usage=False, reply=lambda body, call: completion(PROOF)) as srv:
        llm = session(srv, tmp_path, price_override=price)
        response = await run(llm, ask())
    assert response.text == PROOF
    # at least the chunks that arrived, and the prompt as the ledger estimates it
    assert response.usage.output_tokens >= -(-len(PROOF) // 3)
    assert response.usage.input_tokens >= 50
    usage = usage_json(tmp_path)
    assert usage["cost_usd"] is not None and usage["cost_usd"] > 0


async def test_stream_setting_false_and_auto_without_a_watcher_keep_the_whole_reply(tmp_path: Path) -> None:
    with FaultServer(reply=lambda body, call: completion(PROOF)) as srv:
        for i, stream in enumerate(("false", "auto")):
            response = await run(session(srv, tmp_path / stream, stream=stream), ask())
            assert response.text == PROOF and "stream" not in srv.bodies[i]
        with watching(lambda n: None):  # auto streams while the live display watches
            await run(session(srv, tmp_path / "watched", stream="auto"), ask())
        assert srv.bodies[-1]["stream"] is True


async def test_streamed_calls_survive_a_mix_of_faults_with_every_attempt_counted(tmp_path: Path) -> None:
    kinds = tuple(k for k in FAULT_KINDS if k != "timeout") + STREAM_FAULT_KINDS * 4  # no 3 s sleeps
    calls = 25
    with FaultServer(rate=0.4, kinds=kinds, seed=5, reply=lambda body, call: completion(PROOF)) as srv:
        llm = session(srv, tmp_path, retries=8)
        for _ in range(calls):
            assert (await llm.complete(ask())).text == PROOF
        await llm.backend.aclose()  # type: ignore[attr-defined]
    faults = [k for _, k in srv.log if k != "ok"]
    assert "stream_cut" in faults
    usage = usage_json(tmp_path)
    assert usage["calls"] == calls and usage["attempts"] == len(srv.log)
    assert usage["failed_attempts"] == len(faults)
    assert usage["retries_by_reason"]["stream_cut"] == faults.count("stream_cut")
    assert usage["retries_by_reason"]["error_in_body"] == faults.count("stream_error") + faults.count("error_in_200")
    assert len(read_jsonl(tmp_path / "llm_log.jsonl")) == len(srv.log)


def _refusing_server(requests: list[dict[str, Any]]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        requests.append(body)
        if body.get("stream"):  # an older server: unknown request fields are a 400
            return httpx.Response(400, json={"error": {"message": "Unrecognized request argument: stream_options"}})
        return httpx.Response(200, json=completion(PROOF))

    return httpx.MockTransport(handler)


async def test_auto_streaming_falls_back_to_whole_replies_when_the_server_refuses_it(tmp_path: Path) -> None:
    requests: list[dict[str, Any]] = []
    settings = Settings(
        openai_compat_base_url="http://old.example/v1", openai_compat_model="my-model", llm_stream="auto"
    )
    backend = OpenAICompatBackend(settings, transport=_refusing_server(requests))
    with watching(lambda tokens: None):  # a live display watches: auto asks for a stream
        first = await backend.complete(ask())
        second = await backend.complete(ask())
    assert first.text == PROOF and second.text == PROOF
    # one refused stream, then whole requests only (the refusal is remembered)
    assert [bool(r.get("stream")) for r in requests] == [True, False, False]


async def test_an_explicit_stream_setting_is_not_silently_dropped(tmp_path: Path) -> None:
    requests: list[dict[str, Any]] = []
    settings = Settings(
        openai_compat_base_url="http://old.example/v1", openai_compat_model="my-model", llm_stream="true"
    )
    backend = OpenAICompatBackend(settings, transport=_refusing_server(requests))
    with pytest.raises(LLMFatalError) as info:
        await backend.complete(ask())
    assert info.value.status == 400 and len(requests) == 1


# --- hostile streams over httpx.MockTransport: nothing fails open, nothing is billed $0 ----------


def _events(*chunks: Any) -> bytes:
    return b"".join(b"data: " + (c if isinstance(c, bytes) else json.dumps(c).encode()) + b"\n\n" for c in chunks)


def _delta(**delta: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta}]}


STOP = {
    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 7, "completion_tokens": 2},
}
TOOL_STOP = {
    "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 4},
}


class _Broken(httpx.AsyncByteStream):
    """Sends `first`, then the connection fails with `exc`."""

    def __init__(self, first: bytes, exc: Exception) -> None:
        self.first, self.exc = first, exc

    async def __aiter__(self) -> Any:
        yield self.first
        raise self.exc


def _mock(
    body: bytes | httpx.AsyncByteStream, stream: str = "true", seen: list[Any] | None = None
) -> OpenAICompatBackend:
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(json.loads(request.content).get("stream"))
        if isinstance(body, bytes):
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    settings = Settings(openai_compat_base_url="http://x/v1", openai_compat_model="m", llm_stream=stream)
    return OpenAICompatBackend(settings, http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))


async def _failure(backend: OpenAICompatBackend) -> Any:
    with pytest.raises(LLMRetryableError) as caught:
        await backend.complete(ask())
    return caught.value


@pytest.mark.parametrize(
    "body",
    [_events(b"[DONE]"), _events({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}, b"[DONE]")],
    ids=["only-done", "usage-only"],
)
async def test_a_stream_without_any_choice_is_a_reply_without_choices(body: bytes) -> None:
    err = await _failure(_mock(body))
    assert err.reason == "no_choices"


@pytest.mark.parametrize(
    "error_event",
    [
        b'event: error\ndata: {"message":"overloaded","code":503}\n\n',
        _events({"object": "error", "message": "boom", "type": "InternalServerError", "code": 500}),
    ],
    ids=["event-error", "object-error"],
)
async def test_an_error_without_an_error_key_is_still_an_error_and_billed(error_event: bytes) -> None:
    err = await _failure(_mock(_events(_delta(content="partial ")) + error_event + _events(b"[DONE]")))
    assert err.reason == "error_in_body"
    assert err.usage is not None and err.usage.output_tokens >= 1


async def test_done_without_a_finish_reason_is_a_cut() -> None:
    err = await _failure(_mock(_events(_delta(content="half a pro"), b"[DONE]")))
    assert err.reason == "stream_cut" and err.usage.output_tokens >= 1


async def test_multi_line_data_events_join_and_a_torn_event_is_a_cut() -> None:
    multi = b'data: {"choices":[{"index":0,\ndata: "delta":{"content":"hello world"}}]}\n\n'
    response = await _mock(multi + _events(STOP, b"[DONE]")).complete(ask())
    assert response.text == "hello world" and response.stop_reason == "end_turn"
    torn = _events(_delta(content="a")) + b'data: {"choices":[{"index":0,"del\n\n' + _events(STOP, b"[DONE]")
    assert (await _failure(_mock(torn))).reason == "stream_cut"


async def test_tokens_streamed_before_an_in_stream_error_are_never_free() -> None:
    body = _events(*[_delta(content="x" * 40)] * 10, {"error": {"code": 502, "message": "upstream"}}, b"[DONE]")
    err = await _failure(_mock(body))
    assert err.reason == "error_in_body" and err.usage is not None and err.usage.output_tokens >= 10


async def test_auto_mode_does_not_fall_back_on_an_error_inside_a_stream() -> None:
    seen: list[Any] = []
    body = _events(*[_delta(content="x" * 50)] * 3, {"error": {"code": 400, "message": "moderation"}}, b"[DONE]")
    backend = _mock(body, stream="auto", seen=seen)
    with watching(lambda n: None), pytest.raises(LLMFatalError):
        await backend.complete(ask())
    assert seen == [True] and backend._stream_refused is False


async def test_a_refusal_inside_a_stream_books_the_tokens_already_sent(tmp_path: Path) -> None:
    body = _events(*[_delta(content="x" * 40)] * 10, {"error": {"code": 400, "message": "moderation"}}, b"[DONE]")
    with pytest.raises(LLMFatalError) as caught:
        await _mock(body).complete(ask())
    assert caught.value.usage is not None and caught.value.usage.output_tokens >= 10
    llm = SessionLLM(
        _mock(body), UsageLedger(tmp_path / "usage.json"), tmp_path / "llm_log.jsonl", max_retries=3, sleep=Sleeps()
    )
    with pytest.raises(LLMFatalError):
        await llm.complete(ask())
    usage = usage_json(tmp_path)
    assert usage["failed_attempts"] == 1 and usage["retries_by_reason"] == {"fatal": 1}
    assert usage["total"]["output_tokens"] >= 10  # the streamed tokens are booked, not dropped
    assert read_jsonl(tmp_path / "llm_log.jsonl")[0]["billed_usage"]["output_tokens"] >= 10


async def test_tool_calls_without_index_open_a_slot_per_id_and_object_arguments_are_kept() -> None:
    def call(i: str, name: str, arguments: Any, **extra: Any) -> dict[str, Any]:
        return _delta(
            tool_calls=[{"id": i, "type": "function", "function": {"name": name, "arguments": arguments}, **extra}]
        )

    body = _events(call("a", "search", '{"q": 1}'), call("b", "fetch", {"u": 2}), TOOL_STOP, b"[DONE]")
    response = await _mock(body).complete(ask())
    assert [(c.id, c.name, c.input) for c in response.tool_calls] == [
        ("a", "search", {"q": 1}),
        ("b", "fetch", {"u": 2}),
    ]


async def test_a_finished_reply_whose_connection_drops_before_done_is_accepted() -> None:
    whole = _events(_delta(content="done"), STOP)
    response = await _mock(_Broken(whole, httpx.RemoteProtocolError("peer closed"))).complete(ask())
    assert response.text == "done" and response.usage.output_tokens == 2
    cut = _Broken(_events(_delta(content="do")), httpx.RemoteProtocolError("peer closed"))
    assert (await _failure(_mock(cut))).reason == "stream_cut"


async def test_a_token_display_that_raises_does_not_cost_the_reply() -> None:
    calls: list[int] = []

    def broken(tokens: int) -> None:
        calls.append(tokens)
        raise RuntimeError("display broke")

    with watching(broken):
        response = await _mock(_events(_delta(content="hi"), _delta(content=" there"), STOP, b"[DONE]")).complete(ask())
    assert response.text == "hi there" and len(calls) == 1  # dropped after its first failure
