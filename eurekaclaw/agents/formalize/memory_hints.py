"""THEORY_PIPELINE=memory_guided: what earlier sessions left behind that can help here —
reusable proven results (knowledge graph), strategies that failed before and counterexamples
found before in the same domain (persistent memory, keyed by domain: another domain's are
about other objects) and domain insights such as pitfalls not already in the session's
<memories> block. The hints share the prompt's memory budget (skills/prompt_budget.py). Memory is optional and may be empty; a failing memory
service costs a warning, never the run.

Only *established* results (checked mechanically or by an independent review, in a session
that did not end refuted/contradicted/abandoned) are offered as known lemmas. Results that
were only self-reviewed or left unchecked are listed apart, labelled unverified with the status
their session ended with, to be re-proved before use; statements a session refuted or
contradicted are listed as false, never as results."""

from __future__ import annotations

import inspect
import logging
import re
from typing import Any

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.memory.insights import domain_slug
from eurekaclaw.skills.prompt_budget import memory_share, tokens, trim_lines_to_tokens

log = logging.getLogger(__name__)

FAILED_PREFIX = "theory.failed_strategies"
FAILED_TAGS = ("failed_strategy", "failed_strategies", "theory")
COUNTEREXAMPLE_PREFIX = "theory.counterexamples"
COUNTEREXAMPLE_TAGS = ("counterexample",)
MAX_ITEMS = 5
MAX_UNVERIFIED = 3
MAX_ITEM_CHARS = 400


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def _short(text: Any) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"


async def _safe(what: str, call: Any, *args: Any, **kwargs: Any) -> list[Any]:
    try:
        return list(await _maybe_await(call(*args, **kwargs)) or [])
    except BudgetExceededError:
        raise
    except Exception as exc:  # memory is a help, not a requirement
        log.warning("memory lookup %s failed: %s", what, exc)
        return []


async def memory_hints(ctx: AgentContext, query: str) -> str:
    """A prompt block of relevant memories for `query`, or "" when there are none."""
    if ctx.settings.theory_pipeline != "memory_guided":
        return ""
    memory = ctx.services.get("memory")
    if memory is None:
        return ""
    lines: list[str] = []
    found = await _safe("search_theorems", memory.search_theorems, query, k=MAX_ITEMS, min_level="cited")
    # A memory service that predates `established` (or a stand-in) may still return nodes that
    # are not established: those are never presented as known.
    established = [n for n in found if _established(n)]
    unverified = [n for n in found if not _established(n) and not getattr(n, "retracted", False)]
    if hasattr(memory, "search_unverified"):
        unverified += await _safe("search_unverified", memory.search_unverified, query, k=MAX_UNVERIFIED)
    retracted = await _safe("search_retracted", memory.search_retracted, query, k=MAX_UNVERIFIED) \
        if hasattr(memory, "search_retracted") else []
    if established:
        lines.append("Results established in earlier sessions (checked by a machine or an independent "
                     "review; reuse them as known lemmas if they fit):")
        for node in established[:MAX_ITEMS]:
            level = getattr(node, "verification_level", "?")
            lines.append(f"- [{level}] {_short(getattr(node, 'statement', node))}")
    unverified = _unique(unverified)[:MAX_UNVERIFIED]
    if unverified:
        lines.append("Unverified results from earlier sessions (NOT established: do not cite them as "
                     "known; prove anything you take from them):")
        for node in unverified:
            lines.append(f"- [{_label(node)}] {_short(getattr(node, 'statement', node))}")
    if retracted:
        lines.append("Statements earlier sessions found to be FALSE (do not assume them or try to prove them):")
        for node in _unique(retracted)[:MAX_UNVERIFIED]:
            lines.append(f"- {_short(getattr(node, 'statement', node))} — {_short(_label(node))}")
    topic = domain_slug(ctx.domain)
    failed = await _domain_list(memory, f"{FAILED_PREFIX}.{topic}", FAILED_TAGS)
    if failed:
        wanted = _words(query)
        ranked = sorted(failed, key=lambda v: -len(wanted & _words(str(v))))
        lines.append("Strategies that failed in earlier sessions in this domain (avoid repeating them):")
        lines.extend(f"- {_short(v)}" for v in ranked[:MAX_ITEMS])
    counterexamples = await _domain_list(memory, f"{COUNTEREXAMPLE_PREFIX}.{topic}", COUNTEREXAMPLE_TAGS)
    if counterexamples:
        wanted = _words(query)
        ranked = sorted(counterexamples, key=lambda v: -len(wanted & _words(str(v))))
        lines.append("Counterexamples found in earlier sessions in this domain (these statements are "
                     "false at the values shown: do not assume them, and check yours against them):")
        lines.extend(f"- {_short(v)}" for v in ranked[:MAX_ITEMS])
    insights = await _safe("load_for_injection", memory.load_for_injection, ctx.domain, k=4, query=query)
    # Insights already in the session's <memories> block (every agent's system prompt) are not
    # repeated here.
    shown = str(ctx.services.get("memories_block") or "")
    insights = [i for i in insights if _offerable(i) and not _already_shown(i, shown)]
    if insights:
        lines.append("Domain insights and known pitfalls:")
        for ins in insights[:MAX_ITEMS]:
            category = getattr(ins, "category", "")
            title = getattr(ins, "title", "")
            tag = category if _established(ins) else f"{category}; {_label(ins)}"
            lines.append(f"- [{tag}] {title}: {_short(getattr(ins, 'content', ins))}")
    # The hints share the prompt's memory budget with the <memories> block (prompt_budget.py).
    share = memory_share(ctx.settings.memory_skill_token_budget) - tokens(shown)
    return trim_lines_to_tokens("\n".join(lines), max(0, share))


async def _domain_list(memory: Any, key: str, tags: tuple[str, ...]) -> list[Any]:
    """The items Learn stored under exactly `key` (one domain's list): another domain's
    failures or counterexamples are about other objects and are never offered."""
    records: list[Any] = []
    persistent = getattr(memory, "persistent", None)
    if persistent is not None and hasattr(persistent, "recall_prefix"):
        records += await _safe("recall_prefix", persistent.recall_prefix, key)
    for tag in tags:
        records += await _safe("recall_by_tag", memory.recall_by_tag, tag)
    found = next((r for r in records if str(getattr(r, "key", "")) == key), None)
    if found is None:
        return []
    value = found.value
    return list(dict.fromkeys(str(v) for v in (value if isinstance(value, list) else [value])))


def _already_shown(insight: Any, block: str) -> bool:
    content = " ".join(str(getattr(insight, "content", "")).split())
    return bool(content) and content in " ".join(block.split())


def _established(item: Any) -> bool:
    return bool(getattr(item, "established", False)) and not getattr(item, "retracted", False)


def _label(item: Any) -> str:
    label = getattr(item, "trust_label", None)
    return label() if callable(label) else "unverified"


def _offerable(insight: Any) -> bool:
    check = getattr(insight, "injectable", None)
    return bool(check()) if callable(check) else not getattr(insight, "retracted", False)


def _unique(nodes: list[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for node in nodes:
        key = str(getattr(node, "node_id", id(node)))
        if key not in seen:
            seen.add(key)
            out.append(node)
    return out
