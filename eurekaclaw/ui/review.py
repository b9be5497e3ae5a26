"""The paper's Q&A and revision page: the `eurekaclaw review` entry point (ReviewRunner), its
history read from the session's review folder, one question or revision per request."""

from __future__ import annotations

import asyncio
from typing import Any

from eurekaclaw.errors import EurekaError


def review_state(session_id: str) -> dict[str, Any]:
    """History and versions, or the reason this session cannot be reviewed (no paper yet)."""
    from eurekaclaw.review.runner import ReviewRunner

    try:
        runner = ReviewRunner.open(session_id)
    except EurekaError as exc:
        return {"available": False, "reason": exc.user_message(), "history": [], "versions": []}
    view = runner.history_view()
    return {"available": True, "reason": "", **view}


def review_call(session_id: str, *, question: str = "", feedback: str = "") -> None:
    """One question or one revision with the configured backend, as the command does it; the
    result lands in the session's review history, which the page shows."""
    from eurekaclaw.review.runner import ReviewRunner

    runner = ReviewRunner.open(session_id)

    async def go() -> None:
        try:
            if question:
                await runner.ask(question)
            else:
                await runner.revise(feedback)
        finally:
            await runner.close()

    asyncio.run(go())
