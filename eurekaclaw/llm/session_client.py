"""SessionLLM: the client agents use. It wraps a backend with what every call needs:
attribution to stage/role/lemma, the budget gate, the usage ledger, the llm_log.jsonl record,
retries of retryable failures (the one retry layer: backends make single attempts, and a stage
is not retried for a retryable error this layer gave up on), and structured output with one
repair round. Every attempt is on the record: one llm_log.jsonl line and one count in usage.json
each, with the retry's reason, its wait and any tokens billed for it.

`session_llm()` is the one place a client is built from the settings (a run, `review`,
`eval-session`), so every command retries by the same policy."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from eurekaclaw.errors import BudgetExceededError, LLMError, LLMOutputError, LLMRetryableError
from eurekaclaw.http_retry import RetryPolicy
from eurekaclaw.llm.client import review_counts_as_evidence
from eurekaclaw.llm.context import current_lemma, current_stage
from eurekaclaw.llm.ledger import Reservation, UsageLedger
from eurekaclaw.llm.types import LLMClient, LLMRequest, LLMResponse, Message, ModelTier, Usage
from eurekaclaw.model_text import restore_in
from eurekaclaw.redact import scrub
from eurekaclaw.store.files import append_jsonl
from eurekaclaw.types.artifacts import utcnow

if TYPE_CHECKING:
    from eurekaclaw.config import Settings

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)

# the one scrubber (eurekaclaw/redact.py); the old name stays for callers
redact = scrub

RETRY_WORDS = {
    "rate_limited": "rate limited",
    "overloaded": "server overloaded",
    "timeout": "timed out",
    "connection": "connection failed",
    "bad_body": "unreadable reply",
    "error_in_body": "error in reply",
    "no_choices": "empty reply",
    "stream_cut": "reply stream broke off",
}


def retry_notice(role: str, reason: str, wait_s: float) -> str:
    """What the live display shows while a call waits: "prover: rate limited, retrying in 12 s"."""
    what = RETRY_WORDS.get(reason, reason.replace("_", " ").replace("http ", "HTTP "))
    return f"{role}: {what}, retrying in {wait_s:.0f} s"


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
        max_retries: int = 6,
        retry_base_s: float = 10.0,
        retry_max_s: float = 300.0,
        retry_total_s: float = 900.0,
        on_usage: Callable[[UsageLedger], None] | None = None,
        on_retry: Callable[[str], None] | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self.backend = backend
        self.ledger = ledger
        self.log_path = Path(log_path) if log_path else None
        self.policy = RetryPolicy(
            max_retries=max_retries, base_s=retry_base_s, max_wait_s=retry_max_s, max_total_s=retry_total_s
        )
        self.on_usage = on_usage
        self.on_retry = on_retry
        self._sleep = sleep
        self._seq = 0
        self._budget_waiters: list[asyncio.Future[None]] = []

    @property
    def backend_name(self) -> str:
        return self.backend.name

    def review_counts(self) -> bool:
        """Whether an LLM review from this backend counts as evidence (level `reviewed`);
        backends that know their model is too weak say no."""
        return review_counts_as_evidence(self.backend)

    def model_for(self, tier: ModelTier) -> str:
        return self.backend.model_for(tier)

    def identity(self, tier: ModelTier = "main") -> str:
        """Which model answers: "<backend>:<model>", what a review record names as reviewer."""
        return f"{self.backend.name}:{self.model_for(tier)}"

    def _log(
        self,
        request: LLMRequest,
        response: LLMResponse | None,
        error: str | None,
        *,
        attempt: int = 1,
        retry_reason: str | None = None,
        retry_wait_s: float | None = None,
        billed: Usage | None = None,
    ) -> None:
        if self.log_path is None:
            return
        self._seq += 1
        entry: dict[str, Any] = {
            "seq": self._seq,
            "ts": utcnow().isoformat(),
            "fingerprint": request.fingerprint(),
            "backend": self.backend.name,
            "priced_model": request.model,
            "attempt": attempt,
            "request": request.log_view(),
            "response": response.model_dump(mode="json") if response else None,
            "error": error,
        }
        if retry_reason is not None:
            entry["retry_reason"] = retry_reason
            entry["retry_wait_s"] = retry_wait_s  # None: no retry followed (gave up)
        if billed is not None:
            entry["billed_usage"] = billed.model_dump()
        # the scrubber runs in append_jsonl, like for every other log
        append_jsonl(self.log_path, entry, private=True)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        request = request.model_copy(
            update={
                "stage": request.stage or current_stage.get(),
                "lemma_id": request.lemma_id or current_lemma.get(),
                "model": request.model or self.backend.model_for(request.tier),
            }
        )
        model = request.model or ""  # priced by the model asked for, never an echoed name
        backend = self.backend.name
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            reservation = await self._reserve(request)
            wait: float | None = None
            try:
                response = await self.backend.complete(request)
            except LLMRetryableError as exc:
                billed = exc.usage if isinstance(exc.usage, Usage) else None
                wait = self.policy.next_wait(attempt - 1, waited, exc.retry_after)
                self.ledger.record_failed_attempt(
                    request, billed, model, backend, reason=exc.reason, wait_s=wait or 0.0
                )
                self._log(
                    request,
                    None,
                    f"{type(exc).__name__}: {exc.message}",
                    attempt=attempt,
                    retry_reason=exc.reason,
                    retry_wait_s=wait,
                    billed=billed,
                )
                if wait is None:
                    exc.message = f"{exc.message} (gave up after {attempt} attempt{'s' if attempt > 1 else ''})"
                    raise
                notice = retry_notice(request.role, exc.reason, wait)
                if self.on_retry:
                    self.on_retry(notice)
                else:
                    log.warning("%s", notice)
            except LLMError as exc:
                # a refusal inside a stream may come after billed tokens: book them too
                usage = getattr(exc, "usage", None)
                billed = usage if isinstance(usage, Usage) else None
                self.ledger.record_failed_attempt(request, billed, model, backend, reason="fatal")
                self._log(
                    request,
                    None,
                    f"{type(exc).__name__}: {exc.message}",
                    attempt=attempt,
                    retry_reason="fatal",
                    billed=billed,
                )
                raise
            else:
                self.ledger.record(request, response.usage, model, backend)
                self._log(request, response, None, attempt=attempt)
                return response
            finally:
                self._release(reservation)
                if self.on_usage:
                    self.on_usage(self.ledger)
            waited += wait
            await self._sleep(wait)

    async def _reserve(self, request: LLMRequest) -> Reservation:
        """Reserve the call's estimated cost. When only calls still in flight stand in the way,
        wait for them to settle, then decide."""
        while True:
            try:
                return self.ledger.reserve(request, request.model or "", self.backend.name)
            except BudgetExceededError:
                if self.ledger.in_flight == 0:
                    raise
            settled: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._budget_waiters.append(settled)
            await settled

    def _release(self, reservation: Reservation) -> None:
        self.ledger.release(reservation)
        waiters, self._budget_waiters = self._budget_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def structured(self, request: LLMRequest, output: type[M]) -> M:
        """A validated `output` model. One repair call shows the model its validation error;
        after that an LLMOutputError is raised for the caller to handle."""
        request = request.model_copy(update={"output": output})
        placeholders = prompt_placeholders(request)
        response = await self.complete(request)
        try:
            return parse_reply(response, output, placeholders)
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
            return parse_reply(retry, output, placeholders)


def session_llm(
    backend: LLMClient,
    ledger: UsageLedger,
    log_path: Path | None,
    settings: Settings,
    *,
    on_usage: Callable[[UsageLedger], None] | None = None,
    on_retry: Callable[[str], None] | None = None,
) -> SessionLLM:
    """A session's client with the configured retry policy (LLM_MAX_RETRIES and the
    LLM_RETRY_*_S waits). `on_retry` receives the notice a waiting call shows; without one it is
    logged."""
    return SessionLLM(
        backend,
        ledger,
        log_path,
        max_retries=settings.llm_max_retries,
        retry_base_s=settings.llm_retry_base_s,
        retry_max_s=settings.llm_retry_max_s,
        retry_total_s=settings.llm_retry_total_s,
        on_usage=on_usage,
        on_retry=on_retry,
    )


def parse_reply(response: LLMResponse, output: type[M], placeholders: frozenset[str] = frozenset()) -> M:
    """The reply as a validated `output`; an echoed prompt placeholder, a truncation or a schema
    mismatch is an LLMOutputError (shared by every path that asks for a structured answer)."""
    if response.stop_reason == "max_tokens":
        raise LLMOutputError("reply truncated at max_tokens", kind="truncated", raw=response.text)
    data = response.structured
    if data is None:
        try:
            data = extract_json(response.text)
        except ValueError as exc:
            raise LLMOutputError(str(exc), kind="schema", raw=response.text) from None
    # LaTeX a JSON decoder made into control characters ("\\beta" arriving as backspace + "eta")
    data = restore_in(data)
    echoed = echoed_placeholders(data, placeholders)
    if echoed:
        # A small model that copies the prompt's example object would otherwise store
        # "<a few paragraphs>" as a gap analysis.
        raise LLMOutputError(
            "these fields repeat the prompt's placeholder instead of an answer: " + "; ".join(echoed[:8]),
            kind="schema",
            raw=json.dumps(data, ensure_ascii=False)[:4000],
        )
    try:
        return output.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()[:8])
        raw = json.dumps(data, ensure_ascii=False)[:4000]
        raise LLMOutputError(problems, kind="schema", raw=raw) from None


# A placeholder in a prompt's example reply: a quoted "<what goes here>".
_PLACEHOLDER = re.compile(r'"(<[^<>"\n]{1,120}>)"')


def prompt_placeholders(request: LLMRequest) -> frozenset[str]:
    """The quoted `"<…>"` placeholders of the request's example replies."""
    text = request.system_text() + "\n" + request.prompt_text()
    return frozenset(m.group(1) for m in _PLACEHOLDER.finditer(text))


def echoed_placeholders(data: Any, placeholders: frozenset[str], path: str = "") -> list[str]:
    """Paths of the string values in `data` that are one of the prompt's placeholders."""
    if not placeholders:
        return []
    if isinstance(data, str):
        return [f"{path or '<root>'} = {data.strip()!r}"] if data.strip() in placeholders else []
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in echoed_placeholders(v, placeholders, f"{path}.{k}".lstrip("."))]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in echoed_placeholders(v, placeholders, f"{path}[{i}]")]
    return []
