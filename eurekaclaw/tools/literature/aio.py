"""`gather_all`: asyncio.gather that cancels the siblings when one fails.

Plain gather leaves the other tasks running after the first error (model calls that would
spend past a budget that was just exhausted); TaskGroup cancels them but wraps the error in an
ExceptionGroup, which would hide BudgetExceededError from the orchestrator. This keeps the
original exception.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def gather_all(*aws: Awaitable[T]) -> list[T]:
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
