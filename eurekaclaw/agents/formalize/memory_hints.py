"""THEORY_PIPELINE=memory_guided: what earlier sessions left behind that can help here —
reusable proven results (knowledge graph), strategies that failed before (persistent memory)
and domain insights such as pitfalls. Memory is optional and may be empty; a failing memory
service costs a warning, never the run."""

from __future__ import annotations

import inspect
import logging
import re
from typing import Any

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.errors import BudgetExceededError

log = logging.getLogger(__name__)

FAILED_PREFIX = "theory.failed_strategies"
FAILED_TAGS = ("failed_strategy", "failed_strategies", "theory")
MAX_ITEMS = 5
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
    theorems = await _safe("search_theorems", memory.search_theorems, query, k=MAX_ITEMS, min_level="cited")
    if theorems:
        lines.append("Results proven in earlier sessions (reuse them as known lemmas if they fit):")
        for node in theorems[:MAX_ITEMS]:
            level = getattr(node, "verification_level", "?")
            lines.append(f"- [{level}] {_short(getattr(node, 'statement', node))}")
    failed: dict[str, Any] = {}
    records: list[Any] = []
    persistent = getattr(memory, "persistent", None)
    if persistent is not None and hasattr(persistent, "recall_prefix"):
        records += await _safe("recall_prefix", persistent.recall_prefix, FAILED_PREFIX + ".")
    for tag in FAILED_TAGS:
        records += await _safe("recall_by_tag", memory.recall_by_tag, tag)
    for rec in records:
        key = str(getattr(rec, "key", ""))
        if key.startswith(FAILED_PREFIX):
            failed.setdefault(key, rec)
    # The Learn stage keeps a list of failures per topic; each entry is one strategy.
    items = [v for rec in failed.values() for v in (rec.value if isinstance(rec.value, list) else [rec.value])]
    if items:
        wanted = _words(query)
        ranked = sorted(items, key=lambda v: -len(wanted & _words(str(v))))
        lines.append("Strategies that failed in earlier sessions (avoid repeating them):")
        lines.extend(f"- {_short(v)}" for v in ranked[:MAX_ITEMS])
    insights = await _safe("load_for_injection", memory.load_for_injection, ctx.domain, k=4, query=query)
    if insights:
        lines.append("Domain insights and known pitfalls:")
        for ins in insights[:MAX_ITEMS]:
            category = getattr(ins, "category", "")
            title = getattr(ins, "title", "")
            lines.append(f"- [{category}] {title}: {_short(getattr(ins, 'content', ins))}")
    return "\n".join(lines)
