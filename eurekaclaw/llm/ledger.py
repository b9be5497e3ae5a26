"""The per-session usage ledger: tokens by stage, role and lemma, cost, and the budget gate."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.llm.prices import Price, cost_usd, price_for
from eurekaclaw.llm.types import LLMRequest, Usage
from eurekaclaw.store.files import atomic_write_json, read_json

# A rough, deliberately high estimate of tokens per character, used only to refuse a call that
# could take spending over the budget before it is made.
TOKENS_PER_CHAR_ESTIMATE = 0.34


class UsageLedger:
    def __init__(self, path: Path | None, budget_usd: float | None = None) -> None:
        self.path = Path(path) if path else None
        self.budget_usd = budget_usd
        self._lock = threading.Lock()
        self.calls = 0
        self.cost = 0.0
        self.cost_known = True
        self.total = Usage()
        self.by_stage: dict[str, dict[str, Any]] = {}
        self.by_role: dict[str, dict[str, Any]] = {}
        self.by_lemma: dict[str, dict[str, Any]] = {}
        self.reserved = 0.0  # worst-case cost of calls in flight (not persisted)
        if self.path is not None:
            self._load()

    # --- persistence -------------------------------------------------------------------------
    def _load(self) -> None:
        data = read_json(self.path, None) if self.path else None
        if not data:
            return
        self.calls = int(data.get("calls", 0))
        self.cost = float(data.get("cost_usd", 0.0))
        self.cost_known = bool(data.get("cost_known", True))
        self.total = Usage(**data.get("total", {}))
        self.by_stage = data.get("by_stage", {})
        self.by_role = data.get("by_role", {})
        self.by_lemma = data.get("by_lemma", {})

    def snapshot(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cost_usd": round(self.cost, 6),
            "cost_known": self.cost_known,
            "budget_usd": self.budget_usd,
            "total": self.total.model_dump(),
            "by_stage": self.by_stage,
            "by_role": self.by_role,
            "by_lemma": self.by_lemma,
        }

    def save(self) -> None:
        if self.path is not None:
            atomic_write_json(self.path, self.snapshot())

    # --- budget --------------------------------------------------------------------------------
    def estimate_cost(self, request: LLMRequest, price: Price | None) -> float:
        if price is None:
            return 0.0
        chars = len(request.system_text()) + len(request.prompt_text())
        estimate = Usage(
            input_tokens=int(chars * TOKENS_PER_CHAR_ESTIMATE) + 50,
            output_tokens=request.max_tokens,
        )
        return cost_usd(estimate, price)

    def check_budget(self, request: LLMRequest, model: str, backend: str) -> None:
        """Refuse a call whose worst case could take spending over the budget."""
        self.release(self.reserve(request, model, backend))

    def reserve(self, request: LLMRequest, model: str, backend: str) -> float:
        """Like check_budget, but the worst case stays reserved until `release`: concurrent
        calls that each fit the budget alone must not overspend it together."""
        if self.budget_usd is None:
            return 0.0
        worst = self.estimate_cost(request, price_for(model, backend))
        with self._lock:
            if self.cost + self.reserved + worst > self.budget_usd + 1e-12:
                in_flight = f", ${self.reserved:.4f} reserved by calls in flight" if self.reserved else ""
                raise BudgetExceededError(
                    f"budget of ${self.budget_usd:.2f} reached (spent ${self.cost:.4f}{in_flight}; "
                    f"the next {request.role} call could cost up to ${worst:.4f})",
                    hint="resume with a higher --budget-usd",
                )
            self.reserved += worst
        return worst

    def release(self, amount: float) -> None:
        with self._lock:
            self.reserved = max(0.0, self.reserved - amount)

    # --- recording -------------------------------------------------------------------------------
    @staticmethod
    def _bump(table: dict[str, dict[str, Any]], key: str, usage: Usage, cost: float) -> None:
        row = table.setdefault(
            key,
            {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0,
             "cache_write_tokens": 0, "cost_usd": 0.0},
        )
        row["calls"] += 1
        row["input_tokens"] += usage.input_tokens
        row["output_tokens"] += usage.output_tokens
        row["cache_read_tokens"] += usage.cache_read_tokens
        row["cache_write_tokens"] += usage.cache_write_tokens
        row["cost_usd"] = round(row["cost_usd"] + cost, 6)

    def record(self, request: LLMRequest, usage: Usage, model: str, backend: str) -> float:
        price = price_for(model, backend)
        cost = cost_usd(usage, price) if price is not None else 0.0
        with self._lock:
            if price is None:
                self.cost_known = False
            self.calls += 1
            self.cost += cost
            self.total = self.total + usage
            self._bump(self.by_stage, request.stage or "none", usage, cost)
            self._bump(self.by_role, request.role, usage, cost)
            if request.lemma_id:
                self._bump(self.by_lemma, request.lemma_id, usage, cost)
            self.save()
        return cost
