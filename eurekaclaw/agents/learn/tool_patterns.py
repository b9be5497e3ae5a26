"""ToolPatternExtractor: tool-call sequences that proved lemmas become skills.

The theory loop records, per lemma attempt, {"lemma_id", "success", "tools": [names in call
order]} on the bus under "tool_traces". Repeated calls of one tool are collapsed, so
[a, a, b] and [a, b] are one pattern. Counts accumulate across sessions in persistent memory
(`skills.tool_patterns.<pattern>`); once a pattern of two or more tools has proved
MIN_SUPPORT lemmas and succeeds more often than it fails, it is written as a distilled skill.
Deterministic: no model call.

Only a non-trivial proof counts as a success of a pattern (`trivial_reason`): a lemma whose
claim verify/trivial.py flagged (vacuous, restated assumption, no free variable…), one settled
by citing a known result (level `cited`: the citation, not the tool calls, carried it), and one
whose recorded proof is under MIN_PROOF_CHARS characters (a one-liner needs no tool recipe).
Two trivial lemmas used to be enough to mint a "skill" that taught nothing.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eurekaclaw.memory.text import keywords, slugify
from eurekaclaw.skills.evolver import compress
from eurekaclaw.types.artifacts import TheoryState
from eurekaclaw.types.skills import SkillMeta, SkillRecord

if TYPE_CHECKING:
    from eurekaclaw.memory.manager import MemoryManager
    from eurekaclaw.skills.registry import SkillRegistry

log = logging.getLogger(__name__)

MIN_SUPPORT = 2
MIN_PROOF_CHARS = 200
KEY_PREFIX = "skills.tool_patterns."
MAX_EXAMPLES = 5


@dataclass
class PatternStats:
    tools: tuple[str, ...]
    successes: int = 0
    failures: int = 0
    examples: list[str] = field(default_factory=list)


def collapse(tools: list[Any]) -> tuple[str, ...]:
    out: list[str] = []
    for tool in tools:
        name = str(tool).strip()
        if name and (not out or out[-1] != name):
            out.append(name)
    return tuple(out)


def pattern_name(tools: tuple[str, ...]) -> str:
    slug = slugify("-then-".join(tools), max_len=200, fallback="tools")
    name = f"tool-pattern-{slug}"
    if len(name) > 64:
        digest = hashlib.sha256("|".join(tools).encode("utf-8")).hexdigest()[:8]
        name = f"{name[:55].rstrip('-')}-{digest}"
    return name


def trivial_reason(state: TheoryState, lemma_id: str) -> str | None:
    """Why a proved lemma says nothing about the tools used on it; None when it does."""
    node = state.lemma_dag.get(lemma_id)
    record = state.proven_lemmas.get(lemma_id)
    if node is None or record is None:
        return "no proof record"
    if node.claim_flags:
        return "its claim was flagged trivial: " + "; ".join(node.claim_flags)
    if record.verification_level == "cited":
        return "accepted by citation, not proved with the tools"
    if len(" ".join(record.proof.split())) < MIN_PROOF_CHARS:
        return f"a proof under {MIN_PROOF_CHARS} characters"
    return None


def session_patterns(
    traces: Any, state: TheoryState, count_successes: bool = True
) -> dict[tuple[str, ...], PatternStats]:
    """Patterns of this session: a lemma counts once per pattern, as a success if any attempt
    with that pattern succeeded. With count_successes False (the session's claim was shown
    false, so its "proofs" prove nothing) only failures are counted."""
    per_lemma: dict[tuple[tuple[str, ...], str], bool] = {}
    for trace in traces if isinstance(traces, list) else []:
        if not isinstance(trace, dict) or not isinstance(trace.get("tools"), list):
            continue
        tools = collapse(trace["tools"])
        lemma_id = str(trace.get("lemma_id") or "")
        if len(tools) < 2 or not lemma_id:
            continue
        key = (tools, lemma_id)
        per_lemma[key] = per_lemma.get(key, False) or bool(trace.get("success"))
    stats: dict[tuple[str, ...], PatternStats] = {}
    for (tools, lemma_id), success in per_lemma.items():
        if success and not count_successes:
            continue
        if success and trivial_reason(state, lemma_id) is not None:
            continue  # neither a success nor a failure of the pattern
        entry = stats.setdefault(tools, PatternStats(tools))
        if success:
            entry.successes += 1
            node = state.lemma_dag.get(lemma_id)
            if node is not None:
                entry.examples.append(compress(node.informal or node.statement, 160))
        else:
            entry.failures += 1
    return stats


def _body(stats: PatternStats, sessions: int) -> str:
    chain = " → ".join(f"`{t}`" for t in stats.tools)
    lines = [
        f"# Tool pattern: {chain}",
        "",
        f"This order of tool calls proved {stats.successes} lemma(s) across {sessions} session(s)"
        f" and was part of {stats.failures} attempt(s) that did not prove their lemma.",
        "",
        "## Steps",
        *[
            f"{i}. Call `{t}`"
            + (
                " and use its result in the next call."
                if i < len(stats.tools)
                else " and quote its result in the proof."
            )
            for i, t in enumerate(stats.tools, 1)
        ],
        "",
        "## When to use",
        "Lemmas like these, which it proved:",
        *[f"- {e}" for e in stats.examples[:MAX_EXAMPLES]],
        "",
        "## Pitfalls",
        "- A tool's numbers support a proof step; they never replace the argument.",
    ]
    return "\n".join(lines).strip()


class ToolPatternExtractor:
    def __init__(
        self, registry: SkillRegistry, memory: MemoryManager | None = None, min_support: int = MIN_SUPPORT
    ) -> None:
        self.registry = registry
        self.memory = memory
        self.min_support = min_support

    def extract_and_save(
        self, traces: Any, state: TheoryState, session_id: str = "", count_successes: bool = True
    ) -> list[SkillRecord]:
        out = []
        for tools, stats in sorted(session_patterns(traces, state, count_successes).items()):
            total, sessions = self._accumulate(tools, stats, session_id)
            if total.successes < self.min_support or total.successes <= total.failures:
                continue
            name = pattern_name(tools)
            existing = self.registry.get(name)
            if existing is not None and existing.meta.source != "distilled":
                continue  # the user wrote or installed a skill of that name: leave it alone
            topic = sorted(keywords(" ".join(total.examples)))[:4]
            meta = SkillMeta(
                name=name,
                version=existing.meta.version if existing else "1.0",
                tags=list(dict.fromkeys(["tool-pattern", *(slugify(t, 32) for t in tools), *topic]))[:10],
                agent_roles=["prover"],
                pipeline_stages=["theory"],
                description=compress(
                    f"Call {' then '.join(tools)}: the order that proved lemmas such as "
                    f"{total.examples[0] if total.examples else 'earlier lemmas'}",
                    300,
                ),
                source="distilled",
            )
            out.append(self.registry.upsert(SkillRecord(meta=meta, body=_body(total, sessions))))
        return out

    def _accumulate(self, tools: tuple[str, ...], stats: PatternStats, session_id: str) -> tuple[PatternStats, int]:
        """This session's counts plus those of earlier sessions (when memory is available)."""
        if self.memory is None:
            return stats, 1
        key = KEY_PREFIX + pattern_name(tools)

        def merge(old: Any) -> dict[str, Any]:
            old = old if isinstance(old, dict) else {}
            by_session = dict(old.get("sessions") or {})
            # Keyed by session, so running Learn twice for one session does not double count.
            by_session[session_id or "?"] = {"successes": stats.successes, "failures": stats.failures}
            examples = list(dict.fromkeys([*stats.examples, *(old.get("examples") or [])]))[:MAX_EXAMPLES]
            return {"tools": list(tools), "sessions": by_session, "examples": examples}

        record = self.memory.persistent.update(key, merge, tags=["tool_pattern"], source_session=session_id)
        value = record.value
        sessions = value["sessions"]
        total = PatternStats(
            tools,
            successes=sum(int(s.get("successes", 0)) for s in sessions.values()),
            failures=sum(int(s.get("failures", 0)) for s in sessions.values()),
            examples=list(value.get("examples") or []),
        )
        return total, len(sessions)
