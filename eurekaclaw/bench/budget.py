"""The bench's two budgets: a total for the whole bench and a cap for each session.

A session is started only with a cap the total can still pay for: what finished runs spent plus
the caps of the runs in flight stays within the total. Without a per-session cap, a session gets
a fair share of what is left (the rest divided by the runs still to start), so a leftover rolls
over to later runs. A run whose cost is unknown (a model without a price) spends the dollar
total entirely: an unknown is never counted as $0.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Allotment:
    usd: float | None
    tokens: int | None


@dataclass
class BenchBudget:
    total_usd: float | None = None
    total_tokens: int | None = None
    run_usd: float | None = None
    run_tokens: int | None = None
    spent_usd: float = 0.0
    spent_tokens: int = 0
    cost_unknown: bool = False
    _held: dict[str, Allotment] = field(default_factory=dict)

    @property
    def limited(self) -> bool:
        return self.total_usd is not None or self.total_tokens is not None

    def _cap(
        self, total: float | None, spent: float, held: float, per_run: float | None, to_start: int
    ) -> float | None:
        if total is None:
            return per_run
        fair = (total - spent - held) / max(1, to_start)
        return fair if per_run is None else min(per_run, fair)

    def allot(self, run_id: str, to_start: int) -> Allotment | None:
        """The caps for the next session, or None when the total cannot pay for another one."""
        if self.total_usd is not None and self.cost_unknown:
            return None
        held_usd = sum(a.usd or 0.0 for a in self._held.values())
        held_tokens = sum(a.tokens or 0 for a in self._held.values())
        usd = self._cap(self.total_usd, self.spent_usd, held_usd, self.run_usd, to_start)
        tokens = self._cap(self.total_tokens, self.spent_tokens, held_tokens, self.run_tokens, to_start)
        if usd is not None and usd <= 1e-9:
            return None
        if tokens is not None and int(tokens) < 1:
            return None
        allotment = Allotment(
            usd=round(usd, 6) if usd is not None else None, tokens=int(tokens) if tokens is not None else None
        )
        self._held[run_id] = allotment
        return allotment

    def settle(self, run_id: str, cost_usd: float | None, tokens: int) -> None:
        self._held.pop(run_id, None)
        self.spend(cost_usd, tokens)

    def spend(self, cost_usd: float | None, tokens: int) -> None:
        if cost_usd is None:
            self.cost_unknown = True
        else:
            self.spent_usd += cost_usd
        self.spent_tokens += tokens

    def exhausted_reason(self) -> str:
        if self.total_usd is not None and self.cost_unknown:
            return "a run's cost is unknown (a model without a price), so the dollar total cannot be kept"
        parts = []
        if self.total_usd is not None:
            parts.append(f"${self.spent_usd:.4f} of ${self.total_usd:.4f} spent")
        if self.total_tokens is not None:
            parts.append(f"{self.spent_tokens} of {self.total_tokens} tokens used")
        return "bench budget reached: " + ", ".join(parts)
