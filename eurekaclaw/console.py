"""The one place that writes to the terminal. Library code logs; the CLI and the progress
display print through these consoles (stdout for results, stderr for progress and errors)."""

from __future__ import annotations

from functools import lru_cache

from rich.console import Console


@lru_cache(maxsize=1)
def out() -> Console:
    return Console(soft_wrap=True)


@lru_cache(maxsize=1)
def err() -> Console:
    return Console(stderr=True, soft_wrap=True)
