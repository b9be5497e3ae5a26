"""Optional external tools in tests: skip with a reason when absent, fail instead when
EUREKACLAW_REQUIRE_TOOLS=1 (set by .ci/run), so CI can never silently skip a checker."""

from __future__ import annotations

import importlib.util
import os
import shutil

import pytest


def tools_required() -> bool:
    return os.environ.get("EUREKACLAW_REQUIRE_TOOLS", "") == "1"


def require_tool(executable: str, reason: str | None = None) -> str:
    """Path of `executable`; otherwise skip (or fail under EUREKACLAW_REQUIRE_TOOLS=1)."""
    path = shutil.which(executable)
    if path:
        return path
    message = reason or f"{executable} is not on PATH"
    if tools_required():
        pytest.fail(f"required tool missing: {message}")
    pytest.skip(message)


def require_module(module: str, reason: str | None = None) -> None:
    if importlib.util.find_spec(module) is not None:
        return
    message = reason or f"python module {module} is not installed"
    if tools_required():
        pytest.fail(f"required tool missing: {message}")
    pytest.skip(message)
