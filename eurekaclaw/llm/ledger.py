"""The per-session usage ledger: tokens by stage, role and lemma, cost, attempts and retries, and
the budget gate.

The budget fails closed. A call is admitted when what was spent plus a *realistic* estimate of
every call in flight (the role's mean reply so far, or half of max_tokens before the first reply)
stays within the budget, and when even if every call in flight used its full max_tokens, spending
would exceed the budget by at most one call. A dollar budget for a model without a price is
refused (the orchestrator checks this before the first call; EUREKACLAW_BUDGET_TOKENS is the way
to cap an unpriced model).

usage.json is derived data: when it is missing or damaged it is rebuilt from llm_log.jsonl,
where every attempt is kept, so spending is never reset to zero.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.llm.prices import Price, cost_usd, price_for
from eurekaclaw.llm.types import LLMRequest, Usage
from eurekaclaw.store.files import atomic_write_json, read_json, read_jsonl

log = logging.getLogger(__name__)

# A rough, deliberately high estimate of tokens per character of the prompt.
TOKENS_PER_CHAR_ESTIMATE = 0.34
# Before a role has replied once, its reply is estimated at this share of max_tokens.
FIRST_REPLY_SHARE = 0.5
# After that, at the role's mean reply times this margin (capped at max_tokens).
REPLY_MARGIN = 1.5
LOG_NAME = "llm_log.jsonl"


def _total_tokens(usage: Usage) -> int:
    return usage.input_tokens + usage.output_tokens + usage.cache_read_tokens + usage.cache_write_tokens


def prompt_tokens_estimate(request: LLMRequest) -> int:
    """A deliberately high count of the tokens a request's prompt costs (schema and tools included)."""
    schema = request.output_schema()
    chars = len(request.system_text()) + len(request.prompt_text()) + (len(str(schema)) if schema else 0)
    chars += sum(len(t.description) + len(str(t.input_schema)) for t in request.tools)
    return int(chars * TOKENS_PER_CHAR_ESTIMATE) + 50


@dataclass
class Reservation:
    """What an admitted call holds until it settles: the estimate and the worst case."""

    id: int = 0
    usd: float = 0.0
    worst_usd: float = 0.0
    tokens: int = 0
    worst_tokens: int = 0


NO_RESERVATION = Reservation()


class UsageLedger:
    def __init__(
        self,
        path: Path | None,
        budget_usd: float | None = None,
        *,
        budget_tokens: int | None = None,
        price_override: Price | None = None,
        log_path: Path | None = None,
    ) -> None:
        self.path = Path(path) if path else None
        self.log_path = Path(log_path) if log_path else (self.path.with_name(LOG_NAME) if self.path else None)
        self.budget_usd = budget_usd
        self.budget_tokens = budget_tokens
        self.price_override = price_override
        self._lock = threading.Lock()
        self.calls = 0  # successful replies
        self.attempts = 0  # every request sent, failed ones included
        self.failed_attempts = 0
        self.retry_wait_s = 0.0
        self.retries_by_reason: dict[str, int] = {}
        self.cost = 0.0  # of the priced calls
        self.cost_known = True
        self.unpriced_models: list[str] = []
        self.total = Usage()
        self.by_stage: dict[str, dict[str, Any]] = {}
        self.by_role: dict[str, dict[str, Any]] = {}
        self.by_lemma: dict[str, dict[str, Any]] = {}
        self.rebuilt_from: str | None = None
        self._inflight: dict[int, Reservation] = {}
        self._ids = itertools.count(1)
        if self.path is not None:
            self._load()

    # --- persistence -------------------------------------------------------------------------
    def _load(self) -> None:
        data = read_json(self.path, None) if self.path else None  # a corrupt file is moved aside
        if not isinstance(data, dict) or "calls" not in data:
            self._rebuild_from_log()
            return
        self.calls = int(data.get("calls", 0))
        self.attempts = int(data.get("attempts", self.calls))
        self.failed_attempts = int(data.get("failed_attempts", 0))
        self.retry_wait_s = float(data.get("retry_wait_s", 0.0))
        self.retries_by_reason = dict(data.get("retries_by_reason", {}))
        priced = data.get("priced_cost_usd", data.get("cost_usd"))
        self.cost = float(priced or 0.0)
        self.cost_known = bool(data.get("cost_known", True))
        self.unpriced_models = list(data.get("unpriced_models", []))
        self.total = Usage(**data.get("total", {}))
        self.by_stage = data.get("by_stage", {})
        self.by_role = data.get("by_role", {})
        self.by_lemma = data.get("by_lemma", {})
        if self.budget_tokens is None and data.get("budget_tokens") is not None:
            self.budget_tokens = int(data["budget_tokens"])

    def _rebuild_from_log(self) -> None:
        """Recount everything from llm_log.jsonl (one line per attempt)."""
        if self.log_path is None or not self.log_path.exists():
            return
        entries = read_jsonl(self.log_path)
        if not entries:
            return
        for entry in entries:
            req = entry.get("request") or {}
            fake = LLMRequest.model_construct(
                role=req.get("role") or "unknown",
                stage=req.get("stage"),
                lemma_id=req.get("lemma_id"),
                messages=[],
                max_tokens=int(req.get("max_tokens") or 0),
            )
            model = entry.get("priced_model") or req.get("model") or ""
            backend = entry.get("backend") or ""
            response = entry.get("response")
            if response is not None:
                usage = Usage(**(response.get("usage") or {}))
                self.record(fake, usage, model, backend, save=False)
            else:
                billed = entry.get("billed_usage")
                self.record_failed_attempt(
                    fake,
                    Usage(**billed) if billed else None,
                    model,
                    backend,
                    reason=str(entry.get("retry_reason") or entry.get("error") or "error"),
                    wait_s=float(entry.get("retry_wait_s") or 0.0),
                    save=False,
                )
        self.rebuilt_from = str(self.log_path)
        log.warning(
            "usage.json was missing or unreadable; rebuilt from %s (%d calls, %d attempts)",
            self.log_path.name,
            self.calls,
            self.attempts,
        )
        self.save()

    def snapshot(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "attempts": self.attempts,
            "failed_attempts": self.failed_attempts,
            "retry_wait_s": round(self.retry_wait_s, 3),
            "retries_by_reason": self.retries_by_reason,
            # null when any call was made with a model of unknown price: never a false $0
            "cost_usd": round(self.cost, 6) if self.cost_known else None,
            "priced_cost_usd": round(self.cost, 6),
            "cost_known": self.cost_known,
            "unpriced_models": self.unpriced_models,
            "budget_usd": self.budget_usd,
            "budget_tokens": self.budget_tokens,
            "total": self.total.model_dump(),
            "by_stage": self.by_stage,
            "by_role": self.by_role,
            "by_lemma": self.by_lemma,
            **({"rebuilt_from": self.rebuilt_from} if self.rebuilt_from else {}),
        }

    def save(self) -> None:
        if self.path is not None:
            atomic_write_json(self.path, self.snapshot())

    def cost_text(self) -> str:
        """ "$0.0123", or "unknown" (with the priced part) when a model had no price."""
        if self.cost_known:
            return f"${self.cost:.4f}"
        return f"unknown (≥ ${self.cost:.4f} priced)" if self.cost else "unknown"

    # --- prices and estimates ------------------------------------------------------------------
    def price(self, model: str, backend: str) -> Price | None:
        return price_for(model, backend, self.price_override)

    def estimate(self, request: LLMRequest) -> tuple[Usage, Usage]:
        """(realistic, worst-case) usage of one call: the prompt as counted, and the reply at the
        role's mean so far (or half of max_tokens for a role not seen yet) vs at max_tokens."""
        prompt = prompt_tokens_estimate(request)
        row = self.by_role.get(request.role)
        if row and row.get("calls"):
            mean = row["output_tokens"] / row["calls"]
            reply = min(request.max_tokens, int(math.ceil(mean * REPLY_MARGIN)) + 16)
        else:
            reply = int(request.max_tokens * FIRST_REPLY_SHARE)
        return (
            Usage(input_tokens=prompt, output_tokens=reply),
            Usage(input_tokens=prompt, output_tokens=request.max_tokens),
        )

    def estimate_cost(self, request: LLMRequest, price: Price | None) -> float:
        """Realistic cost of one call (0 when the price is unknown)."""
        return cost_usd(self.estimate(request)[0], price) if price is not None else 0.0

    # --- budget --------------------------------------------------------------------------------
    def check_budget(self, request: LLMRequest, model: str, backend: str) -> None:
        """Refuse a call that does not fit the budget."""
        self.release(self.reserve(request, model, backend))

    @property
    def reserved(self) -> float:
        """Estimated dollars held by calls in flight."""
        return sum(r.usd for r in self._inflight.values())

    @property
    def in_flight(self) -> int:
        return len(self._inflight)

    def reserve(self, request: LLMRequest, model: str, backend: str) -> Reservation:
        """Admit a call (see the module docstring) and hold its estimate until `release`."""
        if self.budget_usd is None and self.budget_tokens is None:
            return NO_RESERVATION
        likely, worst = self.estimate(request)
        price = self.price(model, backend)
        with self._lock:
            res = Reservation(id=next(self._ids), tokens=_total_tokens(likely), worst_tokens=_total_tokens(worst))
            if self.budget_usd is not None:
                if price is None and self.budget_tokens is None:
                    raise BudgetExceededError(
                        f"the ${self.budget_usd:.2f} budget cannot be enforced: model {model!r} has no known price",
                        hint="set LLM_PRICE_INPUT_PER_M and LLM_PRICE_OUTPUT_PER_M, or use --budget-tokens",
                    )
                if price is not None:
                    res.usd, res.worst_usd = cost_usd(likely, price), cost_usd(worst, price)
                    self._admit(self.cost, self.budget_usd, res.usd, res.worst_usd, "usd", request)
            if self.budget_tokens is not None:
                spent = _total_tokens(self.total)
                self._admit(spent, self.budget_tokens, res.tokens, res.worst_tokens, "tokens", request)
            self._inflight[res.id] = res
        return res

    def _admit(self, spent: float, budget: float, likely: float, worst: float, unit: str, request: LLMRequest) -> None:
        held = [(getattr(r, unit), getattr(r, "worst_" + unit)) for r in self._inflight.values()]
        expected = spent + sum(h[0] for h in held) + likely
        worst_all = spent + sum(h[1] for h in held) + worst - max([worst, *(h[1] for h in held)])
        if expected <= budget + 1e-12 and worst_all <= budget + 1e-12:
            return
        if unit == "usd":
            in_flight = f", ${sum(h[0] for h in held):.4f} held by calls in flight" if held else ""
            raise BudgetExceededError(
                f"budget of ${budget:.2f} reached (spent ${spent:.4f}{in_flight}; "
                f"the next {request.role} call would likely cost ${likely:.4f})",
                hint="resume with a higher --budget-usd",
            )
        in_flight = f", {sum(h[0] for h in held):,} held by calls in flight" if held else ""
        raise BudgetExceededError(
            f"token budget of {int(budget):,} reached (used {int(spent):,}{in_flight}; "
            f"the next {request.role} call would likely use {int(likely):,})",
            hint="resume with a higher --budget-tokens",
        )

    def release(self, reservation: Reservation | float) -> None:
        if isinstance(reservation, Reservation):
            with self._lock:
                self._inflight.pop(reservation.id, None)

    # --- recording -------------------------------------------------------------------------------
    @staticmethod
    def _bump(table: dict[str, dict[str, Any]], key: str, usage: Usage, cost: float, *, reply: bool) -> None:
        row = table.setdefault(
            key,
            {
                "calls": 0,
                "input_tokens": 0,
                "output_tokens": 0,
                "cache_read_tokens": 0,
                "cache_write_tokens": 0,
                "cost_usd": 0.0,
            },
        )
        row.setdefault("attempts", row["calls"])
        row["attempts"] += 1
        if reply:
            row["calls"] += 1
        row["input_tokens"] += usage.input_tokens
        row["output_tokens"] += usage.output_tokens
        row["cache_read_tokens"] += usage.cache_read_tokens
        row["cache_write_tokens"] += usage.cache_write_tokens
        row["cost_usd"] = round(row["cost_usd"] + cost, 6)

    def _price_usage(self, usage: Usage, model: str, backend: str) -> float:
        price = self.price(model, backend)
        if price is None and _total_tokens(usage) == 0:
            return 0.0  # a failed attempt that billed nothing costs nothing, price or not
        if price is None:
            self.cost_known = False
            if model not in self.unpriced_models:
                self.unpriced_models.append(model)
            return 0.0
        return cost_usd(usage, price)

    def _add(self, request: LLMRequest, usage: Usage, model: str, backend: str, *, reply: bool) -> float:
        cost = self._price_usage(usage, model, backend)
        self.attempts += 1
        if reply:
            self.calls += 1
        self.cost += cost
        self.total = self.total + usage
        self._bump(self.by_stage, request.stage or "none", usage, cost, reply=reply)
        self._bump(self.by_role, request.role, usage, cost, reply=reply)
        if request.lemma_id:
            self._bump(self.by_lemma, request.lemma_id, usage, cost, reply=reply)
        return cost

    def record(self, request: LLMRequest, usage: Usage, model: str, backend: str, *, save: bool = True) -> float:
        """A successful reply, priced by the model the session asked for (`model`), never by the
        name a server echoes back."""
        with self._lock:
            cost = self._add(request, usage, model, backend, reply=True)
            if save:
                self.save()
        return cost

    def record_failed_attempt(
        self,
        request: LLMRequest,
        usage: Usage | None,
        model: str,
        backend: str,
        *,
        reason: str,
        wait_s: float = 0.0,
        save: bool = True,
    ) -> float:
        """A failed attempt: counted, with the tokens billed for it when the server said so."""
        with self._lock:
            cost = self._add(request, usage or Usage(), model, backend, reply=False)
            self.failed_attempts += 1
            self.retry_wait_s += wait_s
            self.retries_by_reason[reason] = self.retries_by_reason.get(reason, 0) + 1
            if save:
                self.save()
        return cost


def check_budget_enforceable(
    budget_usd: float | None,
    budget_tokens: int | None,
    backends: list[Any],
    price_override: Price | None = None,
) -> None:
    """Before the first call: a dollar budget needs a price for every model the session may
    call, unless a token budget caps the run instead. Raises MissingConfigError (exit 3)."""
    from eurekaclaw.errors import MissingConfigError

    if budget_usd is None or budget_tokens is not None:
        return
    missing: list[str] = []
    for backend in backends:
        if backend is None:
            continue
        for tier in ("main", "fast"):
            model = backend.model_for(tier)
            label = f"{backend.name}:{model}"
            if price_for(model, backend.name, price_override) is None and label not in missing:
                missing.append(label)
    if missing:
        raise MissingConfigError(
            f"the ${budget_usd:g} budget cannot be enforced: no price is known for "
            f"{', '.join(missing)}; set LLM_PRICE_INPUT_PER_M and LLM_PRICE_OUTPUT_PER_M (USD per "
            "million tokens), or cap tokens instead with --budget-tokens N (EUREKACLAW_BUDGET_TOKENS)"
        )
