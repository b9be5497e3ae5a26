"""The one retry layer under injected faults, over the real HTTP path (OpenAICompatBackend → httpx
→ tests/fault_server.py on 127.0.0.1). Prints one `name value` figure per line.

Part 1, calls: N calls at each fault rate (16 fault kinds mixed), with LLM_MAX_RETRIES=6: calls
completed, requests per call (max, mean), attempts counted in usage.json, planned wait.
Part 2, the old worst case: one call against a server that always answers 503 (defaults).
Part 3, sessions (--sessions K): whole sessions (every stage; tests/e2e/demo_responder.py plays the
model, its replies travel through the fault server) at each rate: completed runs, proved
theorems, tracebacks logged, false "proved" (never expected).

    python benchmarks/llm_faults.py [--calls 200] [--sessions 4]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import logging
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from fault_server import FaultServer, completion  # noqa: E402

from eurekaclaw.config import Settings, load_settings  # noqa: E402
from eurekaclaw.errors import LLMRetryableError  # noqa: E402
from eurekaclaw.llm.ledger import UsageLedger  # noqa: E402
from eurekaclaw.llm.openai_compat import OpenAICompatBackend  # noqa: E402
from eurekaclaw.llm.scripted import ScriptedBackend  # noqa: E402
from eurekaclaw.llm.session_client import SessionLLM  # noqa: E402
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message  # noqa: E402


class Planned(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def ask(i: int) -> LLMRequest:
    return LLMRequest(role="prover", messages=[Message(role="user", content=f"Prove lemma {i}.")], max_tokens=64)


async def calls_at(rate: float, n: int, seed: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, FaultServer(rate=rate, seed=seed) as srv:
        settings = Settings(openai_compat_base_url=srv.base_url, openai_compat_model="m", llm_timeout_s=0.3)
        planned = Planned()
        llm = SessionLLM(
            OpenAICompatBackend(settings),
            UsageLedger(Path(tmp) / "usage.json"),
            Path(tmp) / "llm_log.jsonl",
            max_retries=6,
            retry_base_s=10.0,
            retry_max_s=300.0,
            retry_total_s=900.0,
            sleep=planned,
        )
        per_call, done = [], 0
        for i in range(n):
            before = len(srv.log)
            try:
                await llm.complete(ask(i))
                done += 1
            except LLMRetryableError:
                pass
            per_call.append(len(srv.log) - before)
        await llm.backend.aclose()  # type: ignore[attr-defined]
        usage = json.loads((Path(tmp) / "usage.json").read_text())
        return {
            "completed": done / n,
            "requests": len(srv.log),
            "max_requests_per_call": max(per_call),
            "mean_requests_per_call": sum(per_call) / n,
            "usage_attempts": usage["attempts"],
            "planned_wait_s_per_call": sum(planned) / n,
        }


async def always_503() -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as tmp, FaultServer(rate=1.0, kinds=("http_503",)) as srv:
        s = load_settings(openai_compat_base_url=srv.base_url, openai_compat_model="m")
        planned = Planned()
        llm = SessionLLM(
            OpenAICompatBackend(s),
            UsageLedger(Path(tmp) / "usage.json"),
            max_retries=s.llm_max_retries,
            retry_base_s=s.llm_retry_base_s,
            retry_max_s=s.llm_retry_max_s,
            retry_total_s=s.llm_retry_total_s,
            sleep=planned,
        )
        try:
            await llm.complete(ask(0))
        except LLMRetryableError:
            pass
        await llm.backend.aclose()  # type: ignore[attr-defined]
        return len(srv.log), sum(planned)


# --- whole sessions ----------------------------------------------------------------------------


def to_openai(resp: LLMResponse) -> dict[str, Any]:
    content = json.dumps(resp.structured) if resp.structured is not None else resp.text
    body = completion(content, prompt=resp.usage.input_tokens or 200, out=resp.usage.output_tokens or 50)
    choice = body["choices"][0]
    if resp.tool_calls:
        choice["message"]["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.input)}}
            for c in resp.tool_calls
        ]
        choice["finish_reason"] = "tool_calls"
    elif resp.stop_reason == "max_tokens":
        choice["finish_reason"] = "length"
    return body


class Proxied(OpenAICompatBackend):
    """The real HTTP backend; a good answer's content is what the demo responder would say,
    handed to the fault server under a token sent in the request's `user` field."""

    def __init__(self, settings: Settings, srv: Any, replies: dict[str, Any]) -> None:
        super().__init__(settings)
        from demo_responder import respond

        self.script = ScriptedBackend(responder=respond)
        self.replies = replies

    async def complete(self, request: LLMRequest) -> LLMResponse:
        token = uuid.uuid4().hex
        self.replies[token] = to_openai(await self.script.complete(request))
        self._token = token
        return await super().complete(request)

    def request_body(self, request: LLMRequest) -> dict[str, Any]:
        body = super().request_body(request)
        body["user"] = getattr(self, "_token", "")
        return body


async def sessions_at(rate: float, k: int) -> dict[str, float]:
    from eurekaclaw.orchestrator.meta import MetaOrchestrator
    from eurekaclaw.types.tasks import InputSpec

    completed = proved = tracebacks = false_proved = 0
    requests = attempts = faults = 0
    for run in range(k):
        replies: dict[str, Any] = {}
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.setLevel(logging.WARNING)
        logging.getLogger().addHandler(handler)
        with (
            tempfile.TemporaryDirectory() as home,
            FaultServer(
                rate=rate,
                seed=100 + run,
                reply=lambda body, call, replies=replies: replies.pop(body.get("user"), completion("ok")),
            ) as srv,
        ):
            os.environ["EUREKACLAW_DIR"] = home
            settings = load_settings(
                eurekaclaw_dir=Path(home),
                eurekaclaw_offline=True,
                gate_mode="none",
                openai_compat_base_url=srv.base_url,
                openai_compat_model="fault-model",
                llm_timeout_s=0.5,
                llm_max_retries=6,
                llm_retry_base_s=0.01,
                llm_retry_max_s=0.05,
                theory_concurrency=1,
            )
            orch = MetaOrchestrator(settings, backend=Proxied(settings, srv, replies), plugins={})
            try:
                result = await orch.run(InputSpec(mode="prove", statement="For all real x, x^2 - 2x + 1 >= 0"))
                completed += result.status in ("completed", "partial") and all(
                    r.status != "failed" for r in result.stages
                )
                proved += result.theory_status == "proved"
                usage = json.loads((Path(result.session_dir) / "usage.json").read_text())
                attempts += usage["attempts"]
            except Exception as exc:  # noqa: BLE001 - a benchmark counts, it does not stop
                print(f"# run {run} at {rate:.0%}: {type(exc).__name__}: {exc}", file=sys.stderr)
            requests += len(srv.log)
            faults += sum(1 for _, kind in srv.log if kind != "ok")
        logging.getLogger().removeHandler(handler)
        tracebacks += stream.getvalue().count("Traceback")
    del false_proved  # a false "proved" would need a refuted lemma; the demo theorem is true
    return {
        "completed": completed,
        "proved": proved,
        "tracebacks": tracebacks,
        "runs": k,
        "requests": requests,
        "faults": faults,
        "usage_attempts": attempts,
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=0)
    args = parser.parse_args()
    for rate, seed in ((0.3, 7), (0.5, 8)):
        figures = await calls_at(rate, args.calls, seed)
        for name, value in figures.items():
            print(
                f"calls_{int(rate * 100)}pct_{name} {value:.3f}"
                if isinstance(value, float)
                else f"calls_{int(rate * 100)}pct_{name} {value}"
            )
    requests, wait = await always_503()
    print(f"always_503_requests {requests}")
    print(f"always_503_planned_wait_s {wait:.0f}")
    if args.sessions:
        for rate in (0.3, 0.5):
            figures = await sessions_at(rate, args.sessions)
            for name, value in figures.items():
                print(f"sessions_{int(rate * 100)}pct_{name} {value}")


if __name__ == "__main__":
    asyncio.run(main())
