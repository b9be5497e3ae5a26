"""ReviewRunner: one `review` command's state — the session, its records, the model client.

The model client is built on the first question or revision, so `--history` works without any
backend configured, and a missing configuration is the usual exit 3 before any call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from eurekaclaw.config import Settings, load_settings
from eurekaclaw.errors import BadInputError
from eurekaclaw.review.facts import PaperFacts, load_facts
from eurekaclaw.review.history import ReviewStore
from eurekaclaw.store.session import SessionDir, Workspace, read_usage

if TYPE_CHECKING:
    from eurekaclaw.agents.base import AgentContext
    from eurekaclaw.agents.stage import Stage
    from eurekaclaw.llm.types import LLMClient
    from eurekaclaw.review.qa import Answer
    from eurekaclaw.review.revise import RevisionOutcome
    from eurekaclaw.review.scope import RevisionScope


class ReviewRunner:
    def __init__(
        self,
        settings: Settings,
        session: SessionDir,
        *,
        llm: str | None = None,
        backend: LLMClient | None = None,
        budget_usd: float | None = None,
        budget_tokens: int | None = None,
    ) -> None:
        self.settings = settings
        self.session = session
        self.store = ReviewStore(session.path)
        self.llm_override = llm
        self._backend = backend
        self.budget_usd = budget_usd
        self.budget_tokens = budget_tokens
        self._ctx: AgentContext | None = None
        # told what a revision will re-run before it runs (the CLI prints it)
        self.on_scope: Callable[[RevisionScope], None] | None = None
        self.stage_impls: dict[str, Stage] | None = None  # tests replace a stage's code here
        self.facts()  # a session without a finished paper fails here, before any model is built

    @classmethod
    def open(cls, session_id: str, **kwargs: Any) -> ReviewRunner:
        settings = load_settings()
        session = Workspace(settings.eurekaclaw_dir).resolve(session_id)
        return cls(settings, session, **kwargs)

    def facts(self) -> PaperFacts:
        return load_facts(self.session, self.store)

    def version(self) -> int:
        return self.facts().version.version

    def context(self) -> AgentContext:
        if self._ctx is None:
            from eurekaclaw.review.agent import review_context

            backend = self._backend
            if backend is None:
                from eurekaclaw.llm.select import build_backend, choose_backend

                name, arg = choose_backend(self.settings, self.llm_override)
                if name == "replay":
                    raise BadInputError("review cannot use a replayed model: a replay has no answers to new questions")
                backend = build_backend(self.settings, name, arg)
            self._backend = backend
            facts = self.facts()
            self._ctx = review_context(
                self.settings,
                self.session,
                facts.bus,
                backend,
                budget_usd=self.budget_usd,
                budget_tokens=self.budget_tokens,
            )
        return self._ctx

    async def ask(self, question: str) -> Answer:
        from eurekaclaw.review.agent import ReviewAgent
        from eurekaclaw.review.qa import answer_question

        agent = ReviewAgent(self.context())
        return await answer_question(agent, self.facts(), question, self.store)

    async def revise(self, feedback: str) -> RevisionOutcome:
        """Decide how far the feedback reaches, say so (on_scope), then either rewrite the prose
        or re-run theory/experiment and the writer on a copy of the session."""
        from eurekaclaw.review.agent import ReviserAgent, ScopeAgent
        from eurekaclaw.review.revise import checked_feedback, revise_paper
        from eurekaclaw.review.scope import decide_scope

        facts = self.facts()
        feedback = checked_feedback(facts, feedback)
        scope = await decide_scope(ScopeAgent(self.context()), facts, feedback)
        if self.on_scope is not None:
            self.on_scope(scope)
        if scope.scope == "prose":
            return await revise_paper(
                ReviserAgent(self.context()), facts, feedback, self.store, scope=scope.model_dump(mode="json")
            )
        from eurekaclaw.review.restage import restage_revision  # loads every stage's code

        return await restage_revision(self.context(), facts, feedback, scope, self.store, impls=self.stage_impls)

    async def close(self) -> None:
        from eurekaclaw.llm.client import aclose

        await aclose(self._backend)

    # --- views -----------------------------------------------------------------------------------
    def cost_view(self) -> dict[str, Any]:
        ledger = self._ctx.llm.ledger if self._ctx is not None else None
        usage = ledger.snapshot() if ledger is not None else read_usage(self.session.path)
        by_stage = (usage.get("by_stage") or {}).get("review") or {}
        known = bool(usage.get("cost_known", True))
        return {
            "review_calls": int(by_stage.get("calls", 0)),
            "review_cost_usd": by_stage.get("cost_usd") if known else None,
            "session_cost_usd": usage.get("cost_usd") if known else None,
            "cost_known": known,
        }

    def cost_line(self) -> str:
        view = self.cost_view()
        if not view["cost_known"]:
            return f"review: {view['review_calls']} LLM call(s); cost unknown (a model without a price was used)"
        cost = view["review_cost_usd"]
        shown = f"${float(cost):.4f}" if cost is not None else "$0.0000"
        return f"review: {view['review_calls']} LLM call(s), {shown} in all reviews of this session"

    def history_view(self) -> dict[str, Any]:
        return {
            "session_id": self.session.session_id,
            "current_version": self.version(),
            "versions": [v.model_dump(mode="json", exclude={"prose"}) for v in self.store.revisions()],
            "history": self.store.history(),
        }

    def history_text(self) -> str:
        lines = [f"session {self.session.session_id}: paper version {self.version()}"]
        for v in self.store.revisions():
            files = ", ".join(f for f in (v.tex_file, v.pdf_file) if f)
            lines.append(f"version {v.version} ({files}): {v.feedback[:100]}")
        for entry in self.store.history():
            if entry.get("kind") == "question":
                lines.append(f"[v{entry.get('version')}] Q: {entry.get('question')}\n    A: {entry.get('answer')}")
            elif entry.get("kind") == "revision":
                state = "written" if entry.get("ok") else f"failed: {entry.get('error')}"
                if entry.get("rerun_stages"):
                    state += f"; re-ran {', '.join(entry['rerun_stages'])}"
                lines.append(f"[v{entry.get('base_version')}] revision ({state}): {entry.get('feedback')}")
        return "\n".join(lines)
