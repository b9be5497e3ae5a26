"""The review's model access: the same SessionLLM, usage ledger and llm_log.jsonl as the session
it reviews, so the session's cost covers its reviews, and a budget applies to them.

A review's `--budget-usd` / `--budget-tokens` (or EUREKACLAW_BUDGET_USD / _TOKENS) caps what this
review may spend, on top of what the session already spent; without one the review has no cap,
like a run without a budget. Calls are attributed to stage "review".
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from eurekaclaw.agents.base import AgentContext, BaseAgent
from eurekaclaw.config import Settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.context import current_stage
from eurekaclaw.llm.ledger import UsageLedger, check_budget_enforceable
from eurekaclaw.llm.prices import settings_price
from eurekaclaw.llm.session_client import session_llm
from eurekaclaw.llm.types import LLMClient
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.store.files import read_json
from eurekaclaw.store.session import SessionDir
from eurekaclaw.tools.base import ToolRegistry

STAGE = "review"


def _total_tokens(ledger: UsageLedger) -> int:
    t = ledger.total
    return t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens


class ReviewLedger(UsageLedger):
    """The session's ledger under the review's caps. usage.json keeps the run's own caps: a
    `resume` reads its token cap from there, and a review must not lift it."""

    def snapshot(self) -> dict[str, Any]:
        data = super().snapshot()
        data["budget_usd"], data["budget_tokens"] = self.run_caps
        return data

    def _load(self) -> None:
        stored = read_json(self.path, None) if self.path else None
        stored = stored if isinstance(stored, dict) else {}
        self.run_caps: tuple[Any, Any] = (stored.get("budget_usd"), stored.get("budget_tokens"))
        super()._load()


def review_ledger(
    settings: Settings, session: SessionDir, backend: LLMClient, budget_usd: float | None, budget_tokens: int | None
) -> UsageLedger:
    """The session's ledger with this review's cap added to what was already spent."""
    budget_usd = budget_usd if budget_usd is not None else settings.eurekaclaw_budget_usd
    budget_tokens = budget_tokens if budget_tokens is not None else settings.eurekaclaw_budget_tokens
    price = settings_price(settings)
    check_budget_enforceable(budget_usd, budget_tokens, [backend], price)
    ledger = ReviewLedger(session.file(SessionDir.USAGE), price_override=price)
    # the run's own caps (loaded from usage.json) were for the run, not for this review
    ledger.budget_usd = ledger.cost + budget_usd if budget_usd is not None else None
    ledger.budget_tokens = _total_tokens(ledger) + budget_tokens if budget_tokens is not None else None
    return ledger


def review_context(
    settings: Settings,
    session: SessionDir,
    bus: KnowledgeBus,
    backend: LLMClient,
    *,
    budget_usd: float | None = None,
    budget_tokens: int | None = None,
) -> AgentContext:
    ledger = review_ledger(settings, session, backend, budget_usd, budget_tokens)

    def events(kind: str, **data: Any) -> None:
        session.event(kind, **data)

    llm = session_llm(
        backend,
        ledger,
        session.file(SessionDir.LLM_LOG),
        settings,
        on_retry=lambda notice: events("llm", message=notice),
    )
    return AgentContext(
        session_id=session.session_id,
        settings=settings,
        bus=bus,
        llm=llm,
        tools=ToolRegistry(),
        episodic=EpisodicMemory(session.session_id),
        session=session,
        events=events,
    )


@contextlib.contextmanager
def review_stage() -> Iterator[None]:
    token = current_stage.set(STAGE)
    try:
        yield
    finally:
        current_stage.reset(token)


class ReviewAgent(BaseAgent):
    """Answers questions about the paper (role `review`, prompt review_system.j2); the work is
    review.qa.answer_question."""

    role = "review"


class ReviserAgent(BaseAgent):
    """Rewrites the paper's prose after feedback (role `reviser`, review_revise_system.j2); the
    work is review.revise.revise_paper."""

    role = "reviser"
    max_tokens_key = "writer"


class ScopeAgent(BaseAgent):
    """Decides how far a revision reaches (role `revision_scope`, review_scope_system.j2); the
    work is review.scope.decide_scope."""

    role = "revision_scope"
