"""SessionMemoryExtractor: tier-4 insights from a session's TheoryState.

The fast model reads the proven lemmas (with their verification levels and who reviewed them),
the failed attempts and the counterexamples — and whether the session established its result —
and proposes insights in four categories. Kept are those with confidence ≥ 0.5 that are not
exact repeats of a saved insight; a near-duplicate (keyword overlap > 40 %) of the same standing
(established or not) is shown to the fast model with the saved one, which merges, skips or
keeps it. Every insight carries the session's trust (agents/learn/trust.py): one from a session
that did not establish its result is stored as unverified and labelled so wherever it is shown.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from eurekaclaw.agents.learn.models import InsightBatch, InsightDraft, MergeDecision
from eurekaclaw.agents.learn.refuted import known_refutations, states_refuted
from eurekaclaw.agents.learn.trust import SessionTrust, review_kind, session_trust
from eurekaclaw.errors import LLMAuthError, LLMError
from eurekaclaw.memory.insights import MIN_CONFIDENCE
from eurekaclaw.skills.evolver import (
    MAX_TOKENS,
    compress,
    dedupe,
    fast_request,
    render_learn_prompt,
)
from eurekaclaw.types.artifacts import CheckResult, TheoryState
from eurekaclaw.types.memory import DomainInsight, InsightCategory

if TYPE_CHECKING:
    from eurekaclaw.llm.session_client import SessionLLM
    from eurekaclaw.memory.manager import MemoryManager

log = logging.getLogger(__name__)

CATEGORIES = set(get_args(InsightCategory))
MAX_INSIGHTS = 6
MAX_MERGE_CALLS = 4
MAX_ITEMS = 12


@dataclass
class ExtractResult:
    saved: list[Path] = field(default_factory=list)
    merged: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)


def _lemma_text(state: TheoryState, lemma_id: str) -> str:
    node = state.lemma_dag.get(lemma_id)
    if node is None:
        return lemma_id
    return node.statement or node.informal or lemma_id


REVIEW_LABELS = {"self": ", self-review", "unknown": ", reviewer not recorded"}


MAX_VERDICTS = 3


def checker_verdicts(checks: list[CheckResult], limit: int = MAX_VERDICTS) -> str:
    """What the mechanical checkers and the reviewer said, failures first: "falsifier failed
    (n=3, T=1: 0.9 > 0.5); z3 passed". Checks that did not run (skipped, no checker) say
    nothing and are left out."""
    said = [c for c in checks if c.verdict not in ("skipped", "no_checker")]
    said.sort(key=lambda c: c.verdict == "passed")
    parts = []
    for check in said[:limit]:
        detail = compress(check.detail, 120) if check.detail else ""
        if check.counterexample and not detail:
            detail = ", ".join(f"{k}={v}" for k, v in list(check.counterexample.items())[:4])
        parts.append(f"{check.checker} {check.verdict}" + (f" ({detail})" if detail else ""))
    return "; ".join(parts)


def session_evidence(state: TheoryState) -> dict[str, list[str]]:
    """The session's proofs, failures (with the checkers' verdicts), counterexamples and the
    bounds the experiment violated, as short lines for a prompt."""
    proven = []
    for lid, rec in state.proven_lemmas.items():
        verdicts = checker_verdicts(rec.checks)
        proven.append(
            f"[{rec.verification_level}{REVIEW_LABELS.get(review_kind(rec), '')}] "
            f"{compress(_lemma_text(state, lid), 200)} — proof: {compress(rec.proof)}"
            + (f" — checks: {verdicts}" if verdicts else "")
        )
    failures = dedupe(
        [
            f"{compress(_lemma_text(state, f.lemma_id), 160)} — {f.error_category}: "
            f"{compress(f.verifier_text or f.proof, 240)}"
            + (f" — checks: {checker_verdicts(f.checks)}" if checker_verdicts(f.checks) else "")
            for f in state.failed_attempts
        ]
    )
    counterexamples = [
        f"{compress(_lemma_text(state, c.lemma_id), 160)} — "
        f"{'confirmed' if c.confirmed else 'unconfirmed'} at {c.assignment}: {compress(c.description, 200)}"
        for c in state.counterexamples
    ]
    return {
        "proven": proven[:MAX_ITEMS],
        "failures": failures[:MAX_ITEMS],
        "counterexamples": counterexamples[:MAX_ITEMS],
        "violations": [compress(c, 240) for c in state.contradictions][:MAX_ITEMS],
    }


class SessionMemoryExtractor:
    def __init__(
        self, llm: SessionLLM, memory: MemoryManager, domain: str, session_id: str, max_tokens: int = MAX_TOKENS
    ) -> None:
        self.llm = llm
        self.max_tokens = max_tokens
        self.memory = memory
        self.domain = domain
        self.session_id = session_id
        self.trust: SessionTrust | None = None

    async def extract_and_save(self, state: TheoryState) -> ExtractResult:
        """Raises LLMOutputError when the insight list itself is unusable; problems with
        single insights or merges are recorded in the result instead."""
        result = ExtractResult()
        evidence = session_evidence(state)
        if not any(evidence.values()):
            return result
        self.trust = session_trust(state)
        prompt = render_learn_prompt(
            "learn_extract_insights",
            domain=self.domain,
            statement=compress(state.formal_statement or state.informal_statement, 600),
            status=state.status,
            max_insights=MAX_INSIGHTS,
            established=self.trust.established,
            trust=self.trust.describe(),
            shown_false=self.trust.shown_false,
            **evidence,
        )
        # A reply cut off at the limit raises (kind "truncated"): no insight of it is saved.
        batch = await self.llm.structured(fast_request(prompt, InsightBatch, self.max_tokens), InsightBatch)
        merges_left = MAX_MERGE_CALLS
        # Claims this session or an earlier one refuted are never stored as an insight.
        known = known_refutations(state, self.memory, self.domain)
        for draft in batch.insights[:MAX_INSIGHTS]:
            insight, why = self._accept(draft)
            if insight is None:
                result.skipped.append((draft.title or "(untitled)", why))
                continue
            refuted = states_refuted(f"{insight.title}\n{insight.content}", known)
            if refuted:
                result.skipped.append((insight.title, f"not stored: {refuted}"))
                continue
            if self.memory.is_repeat_insight(insight):
                result.skipped.append((insight.title, "exact repeat of a saved insight"))
                continue
            # Only notes of the same standing merge: a merge must not lift an unverified claim
            # into an established note, nor bury an established one under an unverified label.
            near = [n for n in self.memory.near_duplicate_insights(insight) if n.established == insight.established]
            replaces = None
            if near and merges_left > 0:
                merges_left -= 1
                insight, replaces, why = await self._merge(near[0], insight, result)
                if insight is None:
                    result.skipped.append((near[0].title, why))
                    continue
                refuted = states_refuted(f"{insight.title}\n{insight.content}", known)
                if refuted:
                    result.skipped.append((insight.title, f"merged text not stored: {refuted}"))
                    continue
            path = self.memory.save_insight(insight, replaces=replaces)
            if path is None:
                result.skipped.append((insight.title, "exact repeat of a saved insight"))
            elif replaces:
                result.merged.append(path)
            else:
                result.saved.append(path)
        return result

    def _accept(self, draft: InsightDraft) -> tuple[DomainInsight | None, str]:
        if draft.category not in CATEGORIES:
            return None, f"unknown category {draft.category!r}"
        if not draft.title.strip() or not draft.content.strip():
            return None, "empty title or content"
        confidence = min(1.0, max(0.0, float(draft.confidence)))
        if confidence < MIN_CONFIDENCE:
            return None, f"confidence {confidence:.2f} below {MIN_CONFIDENCE}"
        trust = self.trust
        return (
            DomainInsight(
                domain=self.domain,
                category=draft.category,  # type: ignore[arg-type]
                title=" ".join(draft.title.split())[:120],
                content=draft.content.strip()[:2000],
                confidence=confidence,
                source_session=self.session_id,
                established=bool(trust and trust.established),
                verification_level=trust.level if trust else "unverified",
                session_status=trust.session_status if trust else "",
                self_reviewed=bool(trust and trust.self_reviewed),
            ),
            "",
        )

    async def _merge(
        self, old: DomainInsight, new: DomainInsight, result: ExtractResult
    ) -> tuple[DomainInsight | None, str | None, str]:
        """(insight to save, file it replaces, reason when nothing is saved)."""
        prompt = render_learn_prompt("learn_merge_insight", domain=self.domain, old=old, new=new)
        try:
            decision = await self.llm.structured(fast_request(prompt, MergeDecision, self.max_tokens), MergeDecision)
        except LLMAuthError:
            raise
        except LLMError as exc:
            # Without a verdict, keep the new note: a duplicate costs less than a lost insight.
            result.degraded.append(f"merge check for {new.title!r} failed ({exc.message}); kept both")
            return new, None, ""
        if decision.action == "skip":
            return None, None, f"near-duplicate of a saved insight ({old.file}); nothing new"
        if decision.action == "merge":
            if not decision.content.strip():
                result.degraded.append(f"merge of {new.title!r} came back empty; kept both")
                return new, None, ""
            merged = new.model_copy(
                update={
                    "title": " ".join((decision.title or new.title).split())[:120],
                    "content": decision.content.strip()[:2000],
                    "confidence": max(old.confidence, new.confidence),
                }
            )
            return merged, old.file, ""
        return new, None, ""
