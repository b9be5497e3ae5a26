"""A fault-injecting OpenAI-compatible server on 127.0.0.1 for the retry tests and the benchmark
(benchmarks/llm_faults.py). Bounded and self-stopping: use it as a context manager; a watchdog
stops it after `max_lifetime_s` whatever happens.

Each request is answered with the next planned fault (a list), else with a fault drawn at
`rate` (seeded), else with a good completion. A good completion's content comes from `reply`
(a function of the request body and a per-call token the client may send in X-Test-Call).

A request with `"stream": true` is answered with server-sent events (chunked), the completion cut
into `chunk_chars` pieces, the usage in a last chunk when the client asked for it (and
`stream_usage` is on); `ignore_stream` answers it with plain JSON instead, as some servers do.
The fault `stream_cut` sends the first chunks of a stream, then drops the connection;
`stream_error` sends the first chunks, then an error event (OpenRouter style), and ends.
"""

from __future__ import annotations

import email.utils
import json
import random
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULT_KINDS = (
    "http_429_seconds",  # 429 + Retry-After: 12
    "http_429_ms",  # 429 + retry-after-ms: 1500
    "http_429_date",  # 429 + Retry-After as an HTTP date 7200 s ahead (must be capped)
    "http_408",
    "http_409",
    "http_500",
    "http_502",
    "http_503",
    "http_504",
    "http_529",
    "timeout",  # answers after the client's read timeout
    "reset",  # closes the connection without an answer
    "non_json_200",  # a proxy's HTML page with status 200
    "truncated_json_200",  # a body cut off mid-way
    "error_in_200",  # {"error": {"code": 502, ...}} with status 200 (OpenRouter style)
    "no_choices_200",  # {"choices": []} with billed usage
)
STREAM_FAULT_KINDS = ("stream_cut", "stream_error")  # only for streamed requests

Reply = Callable[[dict[str, Any], str | None], dict[str, Any]]


def completion(content: str, model: str = "echo-model", prompt: int = 100, out: int = 20) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out},
    }


class FaultServer:
    def __init__(
        self,
        *,
        rate: float = 0.0,
        kinds: tuple[str, ...] = FAULT_KINDS,
        plan: list[str | None] | None = None,
        seed: int = 0,
        timeout_sleep_s: float = 3.0,
        reply: Reply | None = None,
        max_lifetime_s: float = 300.0,
        ignore_stream: bool = False,
        stream_usage: bool = True,
        chunk_chars: int = 3,
    ) -> None:
        self.ignore_stream = ignore_stream
        self.stream_usage = stream_usage
        self.chunk_chars = chunk_chars
        self.bodies: list[dict[str, Any]] = []
        self.rate = rate
        self.kinds = kinds
        self.plan = list(plan or [])
        self.rng = random.Random(seed)
        self.timeout_sleep_s = timeout_sleep_s
        self.reply = reply or (lambda body, call: completion("ok"))
        self.max_lifetime_s = max_lifetime_s
        self.lock = threading.Lock()
        self.log: list[tuple[str | None, str]] = []  # (call token, fault kind or "ok")
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._watchdog: threading.Timer | None = None

    # --- lifecycle ----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FaultServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                server.handle(self, raw)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self._watchdog = threading.Timer(self.max_lifetime_s, self.stop)
        self._watchdog.daemon = True
        self._watchdog.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    # --- answers ------------------------------------------------------------------------------
    def _choose(self) -> str | None:
        with self.lock:
            if self.plan:
                return self.plan.pop(0)
            if self.rate and self.rng.random() < self.rate:
                return self.rng.choice(self.kinds)
            return None

    def requests_for(self, call: str | None) -> int:
        return sum(1 for c, _ in self.log if c == call)

    def handle(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        call = h.headers.get("X-Test-Call")
        fault = self._choose()
        with self.lock:
            self.log.append((call, fault or "ok"))
        body = json.loads(raw or b"{}")
        with self.lock:
            self.bodies.append(body)
        streamed = bool(body.get("stream")) and not self.ignore_stream
        if fault is None and streamed:
            self._send_stream(h, body, self.reply(body, call))
        elif fault is None:
            self._send(h, 200, json.dumps(self.reply(body, call)).encode())
        elif fault in STREAM_FAULT_KINDS:
            self._send_stream(h, body, self.reply(body, call), fault=fault)
        elif fault.startswith("http_429"):
            headers = {
                "http_429_seconds": {"Retry-After": "12"},
                "http_429_ms": {"retry-after-ms": "1500"},
                "http_429_date": {"Retry-After": email.utils.formatdate(time.time() + 7200, usegmt=True)},
            }
            self._send(h, 429, b'{"error": {"message": "rate limited"}}', headers[fault])
        elif fault.startswith("http_"):
            self._send(h, int(fault[5:]), b'{"error": {"message": "server trouble"}}')
        elif fault == "timeout":
            time.sleep(self.timeout_sleep_s)
            self._send(h, 200, json.dumps(completion("too late")).encode())
        elif fault == "reset":
            h.close_connection = True
            try:
                h.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        elif fault == "non_json_200":
            self._send(h, 200, b"<html><body>502 Bad Gateway (proxy)</body></html>", {"Content-Type": "text/html"})
        elif fault == "truncated_json_200":
            self._send(h, 200, json.dumps(completion("cut"))[:40].encode())
        elif fault == "error_in_200":
            self._send(h, 200, b'{"error": {"code": 502, "message": "upstream provider error"}}')
        elif fault == "no_choices_200":
            self._send(h, 200, b'{"id": "x", "choices": [], "usage": {"prompt_tokens": 90, "completion_tokens": 0}}')
        else:
            raise ValueError(fault)

    def events(self, body: dict[str, Any], completion: dict[str, Any]) -> list[bytes]:
        """The completion as the `data:` events a streaming server sends."""
        choice = completion["choices"][0]
        message, base = choice["message"], {"id": completion.get("id"), "model": completion.get("model")}
        content = message.get("content") or ""
        deltas: list[dict[str, Any]] = [{"role": "assistant"}]
        deltas += [{"content": content[i : i + self.chunk_chars]} for i in range(0, len(content), self.chunk_chars)]
        for index, tc in enumerate(message.get("tool_calls") or []):
            args = tc["function"]["arguments"]
            half = len(args) // 2
            deltas.append(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": tc["id"],
                            "type": "function",
                            "function": {"name": tc["function"]["name"], "arguments": args[:half]},
                        }
                    ]
                }
            )
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": args[half:]}}]})
        chunks = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
        if (body.get("stream_options") or {}).get("include_usage") and self.stream_usage:
            chunks.append({**base, "choices": [], "usage": completion.get("usage")})
        return [f"data: {json.dumps(c)}\n\n".encode() for c in chunks] + [b"data: [DONE]\n\n"]

    def _send_stream(
        self, h: BaseHTTPRequestHandler, body: dict[str, Any], completion: dict[str, Any], fault: str | None = None
    ) -> None:
        events = self.events(body, completion)
        cut = fault == "stream_cut"
        if fault is not None:
            events = events[: max(2, len(events) // 2)]
        if fault == "stream_error":
            events.append(b'data: {"error": {"code": 503, "message": "upstream provider error"}}\n\n')
        try:
            h.send_response(200)
            h.send_header("Content-Type", "text/event-stream")
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            for event in events:
                h.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
                h.wfile.flush()
            if cut:  # no closing chunk: the connection just ends mid-body
                h.close_connection = True
                h.connection.shutdown(socket.SHUT_RDWR)
                return
            h.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
        except OSError:  # the client gave up (a timeout fault)
            pass
