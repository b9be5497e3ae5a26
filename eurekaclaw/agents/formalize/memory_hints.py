"""THEORY_PIPELINE=memory_guided: what earlier sessions left behind that can help here —
reusable proven results (knowledge graph), strategies that failed before and counterexamples
found before in the same domain (persistent memory, keyed by domain: another domain's are
about other objects) and domain insights such as pitfalls not already in the session's
<memories> block. The hints share the prompt's memory budget (skills/prompt_budget.py). Memory is optional
and may be empty; a failing memory store costs a warning, never the run.

Only *established* results (checked mechanically or by an independent review, in a session
that did not end refuted/contradicted/abandoned) are offered as known lemmas. Results that
were only self-reviewed or left unchecked are listed apart, labelled unverified with the status
their session ended with, to be re-proved before use; statements a session refuted or
contradicted are listed as false, never as results."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.memory.insights import domain_slug
from eurekaclaw.skills.prompt_budget import memory_share, tokens, trim_lines_to_tokens
from eurekaclaw.types.memory import CrossRunRecord, DomainInsight, KnowledgeNode

if TYPE_CHECKING:
    from eurekaclaw.memory.manager import MemoryManager

log = logging.getLogger(__name__)

FAILED_PREFIX = "theory.failed_strategies"
FAILED_TAGS = ("failed_strategy", "failed_strategies", "theory")
COUNTEREXAMPLE_PREFIX = "theory.counterexamples"
COUNTEREXAMPLE_TAGS = ("counterexample",)
MAX_ITEMS = 5
MAX_UNVERIFIED = 3
MAX_ITEM_CHARS = 400

T = TypeVar("T")


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"


def _safe(what: str, call: Callable[..., list[T]], *args: object, **kwargs: object) -> list[T]:
    try:
        return list(call(*args, **kwargs))
    except BudgetExceededError:
        raise
    except Exception as exc:  # memory is a help, not a requirement (a corrupt store, a lock)
        log.warning("memory lookup %s failed: %s", what, exc)
        return []


async def memory_hints(ctx: AgentContext, query: str) -> str:
    """A prompt block of relevant memories for `query`, or "" when there are none."""
    if ctx.settings.theory_pipeline != "memory_guided":
        return ""
    memory = ctx.services.memory
    if memory is None:
        return ""
    lines: list[str] = []
    found = _safe("search_theorems", memory.search_theorems, query, k=MAX_ITEMS, min_level="cited")
    # A node saved before `established` existed may still come back: it is never presented
    # as known.
    established = [n for n in found if _established(n)]
    unverified = [n for n in found if not _established(n) and not n.retracted]
    unverified += _safe("search_unverified", memory.search_unverified, query, k=MAX_UNVERIFIED)
    retracted = _safe("search_retracted", memory.search_retracted, query, k=MAX_UNVERIFIED)
    if established:
        lines.append(
            "Results established in earlier sessions (checked by a machine or an independent "
            "review; reuse them as known lemmas if they fit):"
        )
        for node in established[:MAX_ITEMS]:
            lines.append(f"- [{node.verification_level}] {_short(node.shown())}")
    unverified = _unique(unverified)[:MAX_UNVERIFIED]
    if unverified:
        lines.append(
            "Unverified results from earlier sessions (NOT established: do not cite them as "
            "known; prove anything you take from them):"
        )
        for node in unverified:
            lines.append(f"- [{node.trust_label()}] {_short(node.shown())}")
    if retracted:
        lines.append("Statements earlier sessions found to be FALSE (do not assume them or try to prove them):")
        for node in _unique(retracted)[:MAX_UNVERIFIED]:
            lines.append(f"- {_short(node.shown())} — {_short(node.trust_label())}")
    topic = domain_slug(ctx.domain)
    failed = _domain_list(memory, f"{FAILED_PREFIX}.{topic}", FAILED_TAGS)
    if failed:
        wanted = _words(query)
        ranked = sorted(failed, key=lambda v: -len(wanted & _words(v)))
        lines.append("Strategies that failed in earlier sessions in this domain (avoid repeating them):")
        lines.extend(f"- {_short(v)}" for v in ranked[:MAX_ITEMS])
    counterexamples = _domain_list(memory, f"{COUNTEREXAMPLE_PREFIX}.{topic}", COUNTEREXAMPLE_TAGS)
    if counterexamples:
        wanted = _words(query)
        ranked = sorted(counterexamples, key=lambda v: -len(wanted & _words(v)))
        lines.append(
            "Counterexamples found in earlier sessions in this domain (these statements are "
            "false at the values shown: do not assume them, and check yours against them):"
        )
        lines.extend(f"- {_short(v)}" for v in ranked[:MAX_ITEMS])
    insights = _safe("load_for_injection", memory.load_for_injection, ctx.domain, k=4, query=query)
    # Insights already in the session's <memories> block (every agent's system prompt) are not
    # repeated here.
    shown = ctx.services.memories_block
    insights = [i for i in insights if i.injectable() and not _already_shown(i, shown)]
    if insights:
        lines.append("Domain insights and known pitfalls:")
        for ins in insights[:MAX_ITEMS]:
            tag = ins.category if _established(ins) else f"{ins.category}; {ins.trust_label()}"
            lines.append(f"- [{tag}] {ins.title}: {_short(ins.content)}")
    # The hints share the prompt's memory budget with the <memories> block (prompt_budget.py).
    share = memory_share(ctx.settings.memory_skill_token_budget) - tokens(shown)
    return trim_lines_to_tokens("\n".join(lines), max(0, share))


def _domain_list(memory: MemoryManager, key: str, tags: tuple[str, ...]) -> list[str]:
    """The items Learn stored under exactly `key` (one domain's list): another domain's
    failures or counterexamples are about other objects and are never offered."""
    records: list[CrossRunRecord] = _safe("recall_prefix", memory.persistent.recall_prefix, key)
    for tag in tags:
        records += _safe("recall_by_tag", memory.recall_by_tag, tag)
    found = next((r for r in records if r.key == key), None)
    if found is None:
        return []
    value = found.value
    return list(dict.fromkeys(str(v) for v in (value if isinstance(value, list) else [value])))


def _already_shown(insight: DomainInsight, block: str) -> bool:
    content = " ".join(insight.content.split())
    return bool(content) and content in " ".join(block.split())


def _established(item: KnowledgeNode | DomainInsight) -> bool:
    return item.established and not item.retracted


def _unique(nodes: list[KnowledgeNode]) -> list[KnowledgeNode]:
    seen: set[str] = set()
    out = []
    for node in nodes:
        if node.node_id not in seen:
            seen.add(node.node_id)
            out.append(node)
    return out
