"""TheoryRun: the state one Theory stage run shares between its concurrent lemma tasks.

All tasks run on one event loop, so a change made between two awaits is atomic; every lemma
outcome is persisted before the next await of the run (atomic write through the bus; outcomes of
the same loop step share one write) and reported as a "lemma" event, so a crash loses at most
the attempts in flight and the terminal's DAG stays live.
"""

from __future__ import annotations

import asyncio
from typing import Any

from eurekaclaw.agents.base import AgentContext, BaseAgent
from eurekaclaw.agents.formalize.dag import active_ids, topological
from eurekaclaw.knowledge_bus.keys import INJECTED_SKILLS, PROOF_COSTS, TOOL_TRACES
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.types.artifacts import FailedAttempt, LemmaNode, LemmaStatus, ProofRecord, TheoryState

PROOF_SUMMARY_CHARS = 600


def summarise(text: str, limit: int = PROOF_SUMMARY_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class TheoryRun:
    def __init__(self, ctx: AgentContext, state: TheoryState) -> None:
        self.ctx = ctx
        self.state = state
        self.settings = ctx.settings
        self.replan_lock = asyncio.Lock()
        self.in_flight: set[str] = set()
        injected = ctx.bus.get(INJECTED_SKILLS) or {}
        self.injected: dict[str, list[str]] = {k: list(v) for k, v in dict(injected).items()}
        self.traces: list[dict[str, Any]] = list(ctx.bus.get(TOOL_TRACES) or ())
        self._learning_dirty = False  # written with the next save, not one file write each
        self._flush_pending = False
        self.memory_hints: dict[str, str] = {}
        # Formal proofs are optional evidence (formal_attempt.py): checks per lemma, and the
        # lemmas whose formal route is closed.
        self.formal_checks: dict[str, int] = {}
        self.formal_closed: dict[str, str] = {}  # lemma id -> the note for its proof record
        # What the repair rounds of this run were spent on (costs.py reports it).
        stored = ctx.bus.get(PROOF_COSTS) or {}
        self.repairs: dict[str, int] = {k: int(v) for k, v in dict(stored.get("repairs") or {}).items()}

    # --- queries ------------------------------------------------------------------------------
    def node(self, lemma_id: str) -> LemmaNode:
        return self.state.lemma_dag[lemma_id]

    def review_client(self) -> SessionLLM:
        return self.ctx.reviewer()

    def reviewer_identity(self) -> tuple[str, bool]:
        """(who reviews, whether that is the model that wrote the proofs)."""
        return self.ctx.reviewer().identity(), self.ctx.self_review()

    def active(self) -> set[str]:
        return active_ids(self.state.lemma_dag)

    def failures(self, lemma_id: str) -> list[FailedAttempt]:
        return [f for f in self.state.failed_attempts if f.lemma_id == lemma_id]

    def deps_context(self, lemma_id: str) -> list[dict[str, Any]]:
        """Each dependency's full statement and a summary of its proof, for prompts."""
        out = []
        for dep in self.node(lemma_id).dependencies:
            node = self.state.lemma_dag.get(dep)
            rec = self.state.proven_lemmas.get(dep)
            if node is None:
                continue
            out.append(
                {
                    "id": dep,
                    "statement": node.statement,
                    "level": rec.verification_level if rec else "unproven",
                    "proof_summary": summarise(rec.proof) if rec else "",
                }
            )
        return out

    # --- changes (each persisted and reported) -----------------------------------------------
    def save(self) -> None:
        """Persist soon: outcomes that happen in the same event-loop step (several lemmas
        finishing together) share one write. `flush()` writes at once."""
        self._refresh_goals()
        if self._flush_pending:
            return
        self._flush_pending = True
        try:
            asyncio.get_running_loop().call_soon(self.flush)
        except RuntimeError:  # no loop running: write now
            self.flush()

    def flush(self) -> None:
        """The TheoryState itself is the checkpoint a resume continues from."""
        if not self._flush_pending:
            return
        self._flush_pending = False
        self.ctx.bus.put_theory_state(self.state)
        if self._learning_dirty:
            self._learning_dirty = False
            self.ctx.bus.put(INJECTED_SKILLS, self.injected)
            self.ctx.bus.put(TOOL_TRACES, self.traces)

    def save_now(self) -> None:
        """Persist at once, and summarise the position in the session checkpoint (at the start
        and the end of a run; in between the TheoryState on disk is the position)."""
        self.save()
        self.flush()
        state = self.state
        self.ctx.checkpoint(
            theory={
                "status": state.status,
                "proven": sorted(state.proven_lemmas),
                "open_goals": state.open_goals,
                "in_flight": sorted(self.in_flight),
            }
        )

    def _refresh_goals(self) -> None:
        state = self.state
        active = self.active()
        order = topological(state.lemma_dag, active) if active else []
        state.open_goals = [
            lid for lid in order if lid not in state.proven_lemmas and state.lemma_dag[lid].status != "refuted"
        ]

    def emit(self, lemma_id: str, state: str, *, attempt: int | None = None, **extra: Any) -> None:
        rec = self.state.proven_lemmas.get(lemma_id)
        self.ctx.events(
            "lemma",
            lemma_id=lemma_id,
            state=state,
            attempt=attempt,
            level=rec.verification_level if rec else None,
            **extra,
        )

    def set_status(self, lemma_id: str, status: LemmaStatus, *, attempt: int | None = None, **extra: Any) -> None:
        self.node(lemma_id).status = status
        if status != "in_progress":  # starting an attempt is not an outcome; resume resets it anyway
            self.save()
        self.emit(lemma_id, status, attempt=attempt, **extra)

    def add_failure(self, failure: FailedAttempt) -> None:
        self.state.failed_attempts.append(failure)
        self.save()
        self.emit(
            failure.lemma_id, "in_progress", attempt=failure.attempt, result="failed", category=failure.error_category
        )

    def add_proof(self, record: ProofRecord) -> None:
        self.state.proven_lemmas[record.lemma_id] = record
        self.node(record.lemma_id).status = "proved"
        self.save()
        self.emit(record.lemma_id, "proved", attempt=record.attempts)

    def note(self, text: str) -> None:
        self.state.notes.append(text)

    def count_repair(self, purpose: str) -> None:
        self.repairs[purpose] = self.repairs.get(purpose, 0) + 1

    # --- what the Learn stage reads --------------------------------------------------------------
    def record_skills(self, lemma_id: str, names: list[str]) -> None:
        if not names:
            return
        seen = self.injected.setdefault(lemma_id, [])
        seen.extend(n for n in names if n not in seen)
        self._learning_dirty = True

    def record_trace(self, lemma_id: str, success: bool, tools: list[str]) -> None:
        self.traces.append({"lemma_id": lemma_id, "success": success, "tools": list(tools)})
        self._learning_dirty = True


class RunAgent(BaseAgent):
    """An agent working inside one theory run (it reads the lemma DAG through it)."""

    def __init__(self, run: TheoryRun) -> None:
        super().__init__(run.ctx)
        self.run = run
