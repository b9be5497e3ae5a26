"""SkillInjector: the few skills worth putting in one agent's prompt, within a token budget.

score = relevance(task, skill) × prior(success record)

relevance  tag:      keyword overlap of the task with the skill's name, tags and description
           semantic: cosine similarity of embeddings of the task and the skill
           hybrid:   the mean of the two (default)
prior      0.5 + p, where p is the skill's success rate shrunk towards 0.5 by two pseudo-uses
           (p = (n·rate + 1) / (n + 2)); an unused skill gets 1.0, a reliable one up to 1.5,
           one that keeps failing down to 0.5, so relevance still dominates.

A skill whose relevance is below MIN_RELEVANCE (measured, see below) scores 0 and is never
offered. Skills are taken best first until k are chosen; one that would overflow the token budget is
passed over for a smaller one further down.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

from eurekaclaw.memory.text import keywords, sha256_text
from eurekaclaw.skills.format import estimate_tokens
from eurekaclaw.types.skills import SkillRecord

if TYPE_CHECKING:
    import numpy as np

    from eurekaclaw.memory.embeddings import Embedder
    from eurekaclaw.skills.registry import SkillRegistry

Strategy = Literal["tag", "semantic", "hybrid"]
STRATEGIES = ("tag", "semantic", "hybrid")
# The relevance floor per strategy, measured with benchmarks/skill_relevance_floor.py (24
# labelled lemma tasks × the 16 seed skills = 34 related and 350 unrelated pairs, built-in
# hashing embedder). Rule: the smallest value (step 0.01) that at most 10 % of unrelated pairs
# reach. Figures (2026-11-24):
#   hybrid    unrelated median 0.044, p90 0.11, p95 0.136, max 0.204; related p25 0.158,
#             median 0.189. Floor 0.12 keeps 82 % of related, 8.3 % of unrelated pairs
#             (the old floor 0.05 kept 45 % of unrelated pairs)
#   semantic  unrelated median 0.071, p95 0.176; related median 0.212.
#             Floor 0.16 keeps 79 % of related, 8.9 % of unrelated pairs (0.05: 72 %)
#   tag       unrelated median 0.000, p95 0.136; related median 0.177.
#             Floor 0.10 keeps 76 % of related, 7.4 % of unrelated pairs (0.05: 31 %)
# Missing a relevant skill costs little; an unrelated one costs tokens and, before this
# floor, false credit in Learn. Re-measure when the embedder changes (the MiniLM model scores
# unrelated text higher; it was not installed when these figures were taken).
MIN_RELEVANCE: dict[str, float] = {"hybrid": 0.12, "semantic": 0.16, "tag": 0.10}
PSEUDO_USES = 2.0


def success_prior(record: SkillRecord) -> float:
    rate = record.meta.success_rate
    if rate is None:
        return 1.0
    n = max(0, record.meta.usage_count)
    p = (n * rate + PSEUDO_USES * 0.5) / (n + PSEUDO_USES)
    return 0.5 + p


def _terms(record: SkillRecord) -> set[str]:
    meta = record.meta
    return keywords(" ".join([meta.name.replace("-", " ").replace("_", " "), *meta.tags, meta.description]))


def tag_relevance(task_terms: set[str], record: SkillRecord) -> float:
    terms = _terms(record)
    if not task_terms or not terms:
        return 0.0
    return len(task_terms & terms) / math.sqrt(len(task_terms) * len(terms))


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def render_skill(record: SkillRecord) -> str:
    return f'<skill name="{_attr(record.meta.name)}">\n{record.body.strip()}\n</skill>'


class SkillInjector:
    def __init__(self, registry: SkillRegistry, embedder: Embedder | None = None) -> None:
        self.registry = registry
        if embedder is None:
            from eurekaclaw.memory.embeddings import LazyEmbedder

            embedder = LazyEmbedder()
        self.embedder = embedder
        self._vectors: dict[tuple[str, str, str], np.ndarray] = {}

    def _skill_vector(self, record: SkillRecord) -> np.ndarray:
        meta = record.meta
        text = f"{meta.name.replace('-', ' ')}\n{meta.description}\n{' '.join(meta.tags)}\n{record.body[:1500]}"
        key = (self.embedder.name, meta.name, sha256_text(text))
        if key not in self._vectors:
            self._vectors[key] = self.embedder.embed([text])[0]
        return self._vectors[key]

    def score(self, task: str, record: SkillRecord, strategy: Strategy = "hybrid") -> float:
        """relevance × prior for one skill (0 when it is below the relevance floor)."""
        return self._scores(task, [record], strategy)[0]

    def relevance(self, task: str, record: SkillRecord, strategy: Strategy = "hybrid") -> float:
        """The relevance of one skill to `task`, before the floor and the prior."""
        return self._relevances(task, [record], strategy)[0]

    def is_relevant(self, task: str, record: SkillRecord, strategy: Strategy = "hybrid") -> bool:
        """Whether the skill clears the measured relevance floor for `task`."""
        return self.relevance(task, record, strategy) >= MIN_RELEVANCE[strategy]

    def _relevances(self, task: str, records: list[SkillRecord], strategy: Strategy) -> list[float]:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
        import numpy as np

        task_terms = keywords(task)
        query = self.embedder.embed([task])[0] if strategy != "tag" else None
        out = []
        for record in records:
            tag = tag_relevance(task_terms, record) if strategy != "semantic" else 0.0
            sem = 0.0
            if query is not None:
                sem = max(0.0, float(np.dot(self._skill_vector(record), query)))
            out.append({"tag": tag, "semantic": sem, "hybrid": (tag + sem) / 2}[strategy])
        return out

    def _scores(self, task: str, records: list[SkillRecord], strategy: Strategy) -> list[float]:
        floor = MIN_RELEVANCE.get(strategy, 0.0)
        return [
            rel * success_prior(record) if rel >= floor else 0.0
            for rel, record in zip(self._relevances(task, records, strategy), records, strict=True)
        ]

    def top_k(
        self,
        task: str,
        role: str,
        k: int = 5,
        strategy: Strategy = "hybrid",
        token_budget: int = 1500,
    ) -> list[SkillRecord]:
        """The best skills for `role` working on `task`, at most k and within token_budget."""
        if k <= 0 or token_budget <= 0 or not (task or "").strip():
            return []
        candidates = self.registry.get_by_role(role)
        if not candidates:
            return []
        scores = self._scores(task, candidates, strategy)
        ranked = sorted(
            ((s, r) for s, r in zip(scores, candidates, strict=True) if s > 0),
            key=lambda sr: (-sr[0], sr[1].meta.name),
        )
        chosen: list[SkillRecord] = []
        # The <skills> wrapper costs a few tokens too.
        remaining = token_budget - estimate_tokens("<skills>\n</skills>")
        for _, record in ranked:
            cost = estimate_tokens(render_skill(record)) + 1
            if cost > remaining:
                continue
            chosen.append(record)
            remaining -= cost
            if len(chosen) >= k:
                break
        return chosen

    @staticmethod
    def render_for_prompt(skills: list[SkillRecord]) -> str:
        """`<skills><skill name="…">…</skill></skills>`; empty when no skill was chosen."""
        if not skills:
            return ""
        return "<skills>\n" + "\n".join(render_skill(s) for s in skills) + "\n</skills>"
