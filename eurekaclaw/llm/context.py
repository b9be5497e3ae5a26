"""Which stage and lemma the current coroutine works for, so every LLM call is attributed."""

from __future__ import annotations

from contextvars import ContextVar

current_stage: ContextVar[str | None] = ContextVar("current_stage", default=None)
current_lemma: ContextVar[str | None] = ContextVar("current_lemma", default=None)
