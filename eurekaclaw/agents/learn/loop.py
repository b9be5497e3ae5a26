"""ContinualLearningLoop.post_run: everything the next session should inherit from this one.

Steps, deterministic ones first so a model failure cannot cost them:
  knowledge_graph    proven lemmas → tier 3 with their claimed levels, established or not
                     (agents/learn/trust.py), "uses" edges
  retractions        statements this session showed false → retracted in tier 3, with the
                     insights and distilled skills of the sessions that had stored them
  failed_strategies  failed attempts and counterexamples → tier 2 (theory.failed_strategies.<domain>)
  skill_stats        SkillRegistry.update_stats for every (lemma, injected skill) whose lemma ended
                     and whose skill clears the injector's relevance floor for that lemma
  tool_patterns      recorded tool-call sequences of proved lemmas → skills
  insights           SessionMemoryExtractor → tier 4 (fast model)
  distill            SkillEvolver.distill_from_session → distilled skills (fast model), shown the
                     failures with checker verdicts, the counterexamples and the bounds the
                     experiment violated

Nothing of a session whose theorem was refuted, contradicted or abandoned, or whose lemmas were
only self-reviewed, is stored as established; when its claim was shown false (refuted,
contradicted) its "proofs" count for nothing: no skill success, no tool-pattern success, no
proof shown to the distiller.

No step stores, as a graph result, an insight or a distilled skill, a claim this session or an
earlier one refuted (agents/learn/refuted.py); the refuted claims themselves are kept in tier 2
(`theory.refuted_claims.<domain>`) for the next sessions to refuse.

Each finished step is recorded on the bus ("learn_progress"), so a resumed Learn stage does
not count a skill's use twice. A step that fails is recorded with its reason and the others
still run; a model step whose reply was unusable stays open, so a retry or resume asks again
(those steps are idempotent). Budget exhaustion, interruption and authentication failures
propagate.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from eurekaclaw.agents.learn.extractor import SessionMemoryExtractor, session_evidence
from eurekaclaw.agents.learn.refuted import (
    KnownRefutations,
    known_refutations,
    remember_refutations,
    states_refuted,
)
from eurekaclaw.agents.learn.retractions import apply_retractions, lemma_statement
from eurekaclaw.agents.learn.tool_patterns import ToolPatternExtractor
from eurekaclaw.agents.learn.trust import lemma_trust, review_kind, session_trust
from eurekaclaw.errors import BudgetExceededError, LLMAuthError, LLMError, RunInterrupted
from eurekaclaw.knowledge_bus.keys import INJECTED_SKILLS, LEARN_PROGRESS, LEARN_REPORT, TOOL_TRACES
from eurekaclaw.memory.insights import domain_slug
from eurekaclaw.skills.evolver import UNVERIFIED_MARK, SkillEvolver, SkillProvenance, compress
from eurekaclaw.skills.prompt_budget import lemma_task
from eurekaclaw.types.artifacts import LemmaNode, TheoryState

if TYPE_CHECKING:
    from eurekaclaw.agents.base import AgentContext
    from eurekaclaw.memory.manager import MemoryManager
    from eurekaclaw.skills.registry import SkillRegistry
    from eurekaclaw.types.skills import SkillRecord

log = logging.getLogger(__name__)

PROGRESS_KEY = LEARN_PROGRESS
REPORT_KEY = LEARN_REPORT
FAILED_PREFIX = "theory.failed_strategies."
COUNTEREXAMPLE_PREFIX = "theory.counterexamples."
MAX_REMEMBERED = 40
STEPS = (
    "knowledge_graph",
    "retractions",
    "failed_strategies",
    "skill_stats",
    "tool_patterns",
    "insights",
    "distill",
)


@dataclass
class LearnReport:
    theorems: list[str] = field(default_factory=list)
    established: list[str] = field(default_factory=list)  # the theorems offered to later sessions
    retracted: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    flagged_skills: list[str] = field(default_factory=list)
    trust: str = ""
    failed_strategies: int = 0
    counterexamples: int = 0
    stats_updated: dict[str, list[bool]] = field(default_factory=dict)
    unknown_skills: list[str] = field(default_factory=list)
    irrelevant_skills: list[str] = field(default_factory=list)  # "<lemma>:<skill>" not credited
    tool_skills: list[str] = field(default_factory=list)
    insights: list[str] = field(default_factory=list)
    insights_skipped: list[list[str]] = field(default_factory=list)
    distilled: list[str] = field(default_factory=list)
    skipped_steps: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = [
            f"{len(self.theorems)} result(s) to the knowledge graph ({len(self.established)} established)",
            f"{self.failed_strategies} failed strateg{'y' if self.failed_strategies == 1 else 'ies'} remembered",
            f"{sum(len(v) for v in self.stats_updated.values())} skill use(s) scored",
            f"{len(self.insights)} insight(s) saved",
            f"{len(self.distilled) + len(self.tool_skills)} skill(s) learned",
        ]
        if self.retracted:
            parts.append(f"{len(self.retracted)} statement(s) retracted")
        return ", ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _append_unique(limit: int, items: list[str]) -> Callable[[Any], list[str]]:
    def merge(old: Any) -> list[str]:
        current = [str(x) for x in old] if isinstance(old, list) else []
        for item in items:
            if item not in current:
                current.append(item)
        return current[-limit:]

    return merge


class ContinualLearningLoop:
    def __init__(self, ctx: AgentContext, memory: MemoryManager, registry: SkillRegistry) -> None:
        self.ctx = ctx
        self.memory = memory
        self.registry = registry
        self.domain = ctx.domain or "general"

    async def post_run(self, state: TheoryState) -> LearnReport:
        report = LearnReport()
        self.trust = session_trust(state)
        report.trust = self.trust.describe()
        done: list[str] = list(self.ctx.bus.get(PROGRESS_KEY) or ())
        actions: dict[str, Callable[[TheoryState, LearnReport], Awaitable[None]]] = {
            "knowledge_graph": self._knowledge_graph,
            "retractions": self._retractions,
            "failed_strategies": self._failed_strategies,
            "skill_stats": self._skill_stats,
            "tool_patterns": self._tool_patterns,
            "insights": self._insights,
            "distill": self._distill,
        }
        for step in STEPS:
            if step in done:
                report.skipped_steps.append(step)
                continue
            try:
                await actions[step](state, report)
            except (BudgetExceededError, RunInterrupted, LLMAuthError):
                raise
            except LLMError as exc:
                report.degraded.append(f"{step}: the model's reply could not be used ({exc.message})")
                continue  # model steps are idempotent: a retry or resume may try again
            except Exception as exc:  # one broken step must not cost the others
                log.warning("learn step %s failed", step, exc_info=True)
                report.degraded.append(f"{step}: {type(exc).__name__}: {exc}")
            done.append(step)
            self.ctx.bus.put(PROGRESS_KEY, done)
        return report

    # --- tier 3 ---------------------------------------------------------------------------------
    async def _knowledge_graph(self, state: TheoryState, report: LearnReport) -> None:
        ids: dict[str, str] = {}
        known = known_refutations(state, self.memory, self.domain)
        for lemma_id, record in state.proven_lemmas.items():
            node = state.lemma_dag.get(lemma_id)
            statement = lemma_statement(state, lemma_id)
            if not statement.strip():
                continue
            refuted = _refuted_result(node.claim if node else None, known)
            if refuted:
                report.notes.append(f"lemma {lemma_id} not stored in the knowledge graph: {refuted}")
                continue
            tags = ["theorem" if node and node.is_root else "lemma"]
            if node is not None:
                tags.append(f"provenance:{node.provenance}")
            trust = lemma_trust(state, lemma_id, record)
            ids[lemma_id] = self.memory.add_theorem(
                statement,
                self.domain,
                record.verification_level,
                proof_summary=compress(record.proof, 400),
                session_id=self.ctx.session_id,
                tags=tags,
                established=trust.established,
                session_status=state.status,
                self_reviewed=trust.self_reviewed,
                note=trust.note,
                claim=_rendered_claim(node),
            )
            if trust.established:
                report.established.append(ids[lemma_id])
        for lemma_id, node_id in ids.items():
            node = state.lemma_dag.get(lemma_id)
            for dep in node.dependencies if node else []:
                if dep in ids and ids[dep] != node_id:
                    self.memory.link_theorems(node_id, ids[dep], "uses")
        report.theorems = sorted(set(ids.values()))
        report.established = sorted(set(report.established))

    async def _retractions(self, state: TheoryState, report: LearnReport) -> None:
        done = apply_retractions(state, self.memory, self.registry, self.domain, self.ctx.session_id)
        report.retracted, report.demoted, report.flagged_skills = done.retracted, done.demoted, done.flagged_skills

    # --- tier 2 ---------------------------------------------------------------------------------
    async def _failed_strategies(self, state: TheoryState, report: LearnReport) -> None:
        evidence = session_evidence(state)
        theorem = compress(state.formal_statement or state.informal_statement, 160)
        # A bound the experiment violated is a counterexample of the theorem, found by simulation.
        evidence["counterexamples"] += [
            f"{theorem} — contradicted by the experiment: {compress(line, 240)}" for line in state.contradictions
        ]
        topic = domain_slug(self.domain)
        tags = ["failed_strategy", "theory", topic]
        if evidence["failures"]:
            self.memory.persistent.update(
                FAILED_PREFIX + topic,
                _append_unique(MAX_REMEMBERED, evidence["failures"]),
                tags=tags,
                source_session=self.ctx.session_id,
            )
        if evidence["counterexamples"]:
            self.memory.persistent.update(
                COUNTEREXAMPLE_PREFIX + topic,
                _append_unique(MAX_REMEMBERED, evidence["counterexamples"]),
                tags=["counterexample", "theory", topic],
                source_session=self.ctx.session_id,
            )
        report.failed_strategies = len(evidence["failures"])
        report.counterexamples = len(evidence["counterexamples"])
        # the refuted claims themselves, for the next sessions' Learn to refuse them as knowledge
        remember_refutations(state, self.memory, self.domain, self.ctx.session_id)

    # --- skill statistics -----------------------------------------------------------------------
    async def _skill_stats(self, state: TheoryState, report: LearnReport) -> None:
        injected = self.ctx.bus.get(INJECTED_SKILLS) or {}
        if not isinstance(injected, dict):
            report.degraded.append("skill_stats: 'injected_skills' on the bus is not a mapping")
            return
        injector = self.ctx.services.skill_injector
        if injector is None:
            # Relevance cannot be re-checked: score nothing rather than credit blindly.
            report.degraded.append("skill_stats: no skill injector to check relevance; no use scored")
            return
        for lemma_id, names in sorted(injected.items()):
            node = state.lemma_dag.get(lemma_id)
            if lemma_id in state.proven_lemmas:
                if self.trust.shown_false or review_kind(state.proven_lemmas[lemma_id]) == "self":
                    # a "proof" in a session whose claim fell, or one only its own model reviewed,
                    # says nothing for the skill
                    continue
                success = True
            elif node is not None and node.status in ("failed", "refuted"):
                success = False
            else:
                continue  # unfinished (budget, pause) or planned away: no verdict on the skills
            task = lemma_task(node.informal, node.statement) if node is not None else ""
            for name in dict.fromkeys(names if isinstance(names, list) else []):
                if name not in self.registry:
                    report.unknown_skills.append(str(name))
                    continue
                record = self.registry.get(name)
                # Credit only a skill that was relevant to the lemma: one injected under an older,
                # lower floor (or by mistake) says nothing about why the lemma ended as it did.
                if not task or record is None or not injector.is_relevant(task, record):
                    report.irrelevant_skills.append(f"{lemma_id}:{name}")
                    continue
                self.registry.update_stats(name, success)
                report.stats_updated.setdefault(name, []).append(success)

    # --- skills from tool use -------------------------------------------------------------------
    async def _tool_patterns(self, state: TheoryState, report: LearnReport) -> None:
        traces = self.ctx.bus.get(TOOL_TRACES) or []
        extractor = ToolPatternExtractor(self.registry, self.memory)
        created = extractor.extract_and_save(
            traces, state, self.ctx.session_id, count_successes=not self.trust.shown_false
        )
        report.tool_skills = [r.meta.name for r in created]

    # --- tier 4 ---------------------------------------------------------------------------------
    async def _insights(self, state: TheoryState, report: LearnReport) -> None:
        extractor = SessionMemoryExtractor(
            self.ctx.llm, self.memory, self.domain, self.ctx.session_id, max_tokens=self.ctx.settings.max_tokens_learn
        )
        result = await extractor.extract_and_save(state)
        report.insights = [p.name for p in [*result.saved, *result.merged]]
        report.insights_skipped = [[t, why] for t, why in result.skipped]
        report.degraded += [f"insights: {d}" for d in result.degraded]

    # --- distilled skills -----------------------------------------------------------------------
    async def _distill(self, state: TheoryState, report: LearnReport) -> None:
        evidence = session_evidence(state)
        trust = self.trust
        provenance = SkillProvenance(
            source_session=self.ctx.session_id,
            session_status=trust.session_status,
            established=trust.established,
            verification_level=trust.level,
            self_reviewed=trust.self_reviewed,
            note=trust.note,
            shown_false=trust.shown_false,
        )
        guarded = _GuardedRegistry(self.registry, known_refutations(state, self.memory, self.domain))
        evolver = SkillEvolver(
            self.ctx.llm,
            cast("SkillRegistry", guarded),
            domain=self.domain,
            provenance=provenance,
            max_tokens=self.ctx.settings.max_tokens_learn,
        )
        created = await evolver.distill_from_session(
            evidence["failures"],
            evidence["proven"],
            evidence["counterexamples"],
            evidence["violations"],
        )
        report.distilled = [r.meta.name for r in created]
        report.notes += [f"distilled skill {n!r} not kept: {why}" for n, why in evolver.skipped]
        report.notes += [f"distilled skill {n!r} not stored: {why}" for n, why in guarded.refused]


def _refuted_result(claim: Any, known: KnownRefutations) -> str | None:
    """Why a proved lemma may not enter the graph as a result: its claim is refuted by a
    counterexample of this session or an earlier one. None when nothing refutes it."""
    if not known:
        return None
    if claim is not None:
        from eurekaclaw.verify.claim_match import refuted_by

        try:
            match = refuted_by(claim, known.counterexamples)
        except Exception:  # fail closed: what cannot be checked against the refutations is not stored
            return "its claim could not be checked against the refuted claims"
        if match is not None:
            return f"its claim {match.detail}"
    # A statement refuted by its words is retracted by the next step (and the graph keeps an
    # earlier retraction whatever a later session claims), so only claims are matched here.
    return None


class _GuardedRegistry:
    """The skill registry as the distiller sees it: a skill whose text states a refuted claim
    is refused before it is written (SkillEvolver only reads with `get` and writes with
    `upsert`)."""

    def __init__(self, registry: SkillRegistry, known: KnownRefutations) -> None:
        self.registry = registry
        self.known = known
        self.refused: list[tuple[str, str]] = []

    def get(self, name: str) -> SkillRecord | None:
        return self.registry.get(name)

    def upsert(self, record: SkillRecord) -> SkillRecord | None:
        body = record.body
        if body.startswith(UNVERIFIED_MARK):
            # the warning is ours (it may quote the refuted claim to say it fell); the model's
            # text starts after it
            body = body.split("\n\n", 1)[1] if "\n\n" in body else ""
        why = states_refuted(f"{record.meta.description}\n{body}", self.known)
        if why:
            self.refused.append((record.meta.name, why))
            return None
        return self.registry.upsert(record)


def _rendered_claim(node: LemmaNode | None) -> str:
    """The lemma's claim as the checkers read it, for the knowledge graph ("" without one)."""
    if node is None or node.claim is None:
        return ""
    from eurekaclaw.agents.views import render_claim

    try:
        return render_claim(node.claim)[1]
    except Exception:  # an unparsable claim is stored without one: its prose stays unlabelled
        return ""
