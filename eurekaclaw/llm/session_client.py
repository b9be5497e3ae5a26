"""SessionLLM: the client agents use. It wraps a backend with what every call needs:
attribution to stage/role/lemma, the budget gate, the usage ledger, the llm_log.jsonl record,
patient retries of retryable failures, and structured output with one repair round."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from eurekaclaw.errors import BudgetExceededError, LLMError, LLMOutputError, LLMRetryableError
from eurekaclaw.llm.context import current_lemma, current_stage
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.types import LLMClient, LLMRequest, LLMResponse, Message
from eurekaclaw.store.files import append_jsonl
from eurekaclaw.types.artifacts import utcnow

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)

_SECRET_RE = re.compile(r"(sk-ant-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9]{20,})")


def redact(text: str) -> str:
    return _SECRET_RE.sub("[REDACTED]", text)


def extract_json(text: str) -> Any:
    """The first JSON object in a reply (bare, or inside a ```json fence)."""
    fence = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL)
    candidates = [fence.group(1)] if fence else []
    start = text.find("{")
    if start >= 0:
        candidates.append(text[start : text.rfind("}") + 1])
    for cand in candidates:
        try:
            return json.loads(cand)
        except json.JSONDecodeError:
            continue
    raise ValueError("no JSON object in the reply")


class SessionLLM:
    def __init__(
        self,
        backend: LLMClient,
        ledger: UsageLedger,
        log_path: Path | None = None,
        *,
        outer_retries: int = 6,
        retry_base_s: float = 10.0,
        retry_max_s: float = 300.0,
        on_usage: Callable[[UsageLedger], None] | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self.backend = backend
        self.ledger = ledger
        self.log_path = Path(log_path) if log_path else None
        self.outer_retries = outer_retries
        self.retry_base_s = retry_base_s
        self.retry_max_s = retry_max_s
        self.on_usage = on_usage
        self._sleep = sleep
        self._seq = 0
        self._budget_waiters: list[asyncio.Future[None]] = []

    @property
    def backend_name(self) -> str:
        return self.backend.name

    def review_counts(self) -> bool:
        """Whether an LLM review from this backend counts as evidence (level `reviewed`);
        backends that know their model is too weak say no."""
        judge = getattr(self.backend, "review_counts_as_evidence", None)
        return True if judge is None else bool(judge())

    def model_for(self, tier: str) -> str:
        return self.backend.model_for(tier)  # type: ignore[arg-type]

    def identity(self, tier: str = "main") -> str:
        """Which model answers: "<backend>:<model>", what a review record names as reviewer."""
        return f"{self.backend.name}:{self.model_for(tier)}"

    def _log(self, request: LLMRequest, response: LLMResponse | None, error: str | None) -> None:
        if self.log_path is None:
            return
        self._seq += 1
        entry = {
            "seq": self._seq,
            "ts": utcnow().isoformat(),
            "fingerprint": request.fingerprint(),
            "request": request.log_view(),
            "response": response.model_dump(mode="json") if response else None,
            "error": error,
        }
        append_jsonl(self.log_path, json.loads(redact(json.dumps(entry, ensure_ascii=False))))

    async def complete(self, request: LLMRequest) -> LLMResponse:
        request = request.model_copy(
            update={
                "stage": request.stage or current_stage.get(),
                "lemma_id": request.lemma_id or current_lemma.get(),
                "model": request.model or self.backend.model_for(request.tier),
            }
        )
        attempt = 0
        while True:
            reservation = await self._reserve(request)
            try:
                response = await self.backend.complete(request)
            except LLMRetryableError as exc:
                self._log(request, None, f"{type(exc).__name__}: {exc.message}")
                attempt += 1
                if attempt > self.outer_retries:
                    raise
                delay = min(self.retry_max_s, self.retry_base_s * 2 ** (attempt - 1))
                delay = max(delay * (0.5 + random.random() / 2), exc.retry_after or 0.0)
                log.warning("%s call failed (%s); retrying in %.0fs", request.role, exc.message, delay)
            except LLMError as exc:
                self._log(request, None, f"{type(exc).__name__}: {exc.message}")
                raise
            else:
                model = response.model or request.model or ""
                self.ledger.record(request, response.usage, model, self.backend.name)
                self._log(request, response, None)
                if self.on_usage:
                    self.on_usage(self.ledger)
                return response
            finally:
                self._release(reservation)
            await self._sleep(delay)

    async def _reserve(self, request: LLMRequest) -> float:
        """Reserve the call's worst-case cost. When only calls still in flight stand in the way,
        wait for them to settle (they usually cost less than their worst case), then decide."""
        while True:
            try:
                return self.ledger.reserve(request, request.model or "", self.backend.name)
            except BudgetExceededError:
                if self.ledger.reserved <= 0:
                    raise
            settled: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._budget_waiters.append(settled)
            await settled

    def _release(self, reservation: float) -> None:
        self.ledger.release(reservation)
        waiters, self._budget_waiters = self._budget_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def structured(self, request: LLMRequest, output: type[M]) -> M:
        """A validated `output` model. One repair call shows the model its validation error;
        after that an LLMOutputError is raised for the caller to handle."""
        request = request.model_copy(update={"output": output})
        response = await self.complete(request)
        try:
            return self._parse(response, output)
        except LLMOutputError as first:
            if first.kind == "truncated":
                raise
            repair_messages = list(request.messages) + [
                Message(role="assistant", content=first.raw or response.text or "(no content)"),
                Message(
                    role="user",
                    content=(
                        "Your reply did not match the required schema:\n"
                        f"{first.message}\nReply again with only a corrected object for "
                        f"{output.__name__}."
                    ),
                ),
            ]
            retry = await self.complete(request.model_copy(update={"messages": repair_messages}))
            return self._parse(retry, output)

    @staticmethod
    def _parse(response: LLMResponse, output: type[M]) -> M:
        if response.stop_reason == "max_tokens":
            raise LLMOutputError("reply truncated at max_tokens", kind="truncated", raw=response.text)
        data = response.structured
        if data is None:
            try:
                data = extract_json(response.text)
            except ValueError as exc:
                raise LLMOutputError(str(exc), kind="schema", raw=response.text) from None
        try:
            return output.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()[:8]
            )
            raw = json.dumps(data, ensure_ascii=False)[:4000]
            raise LLMOutputError(problems, kind="schema", raw=raw) from None
