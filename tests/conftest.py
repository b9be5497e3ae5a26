"""Every test runs with EUREKACLAW_DIR in a temp dir and without LLM credentials from the host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

HOST_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_COMPAT_BASE_URL",
    "OPENAI_COMPAT_API_KEY",
    "OPENAI_COMPAT_MODEL",
    "LLM_BACKEND",
    "EUREKACLAW_BUDGET_USD",
    "EUREKACLAW_LOCAL_MODEL",
    "S2_API_KEY",
    "BRAVE_API_KEY",
    "GATE_MODE",
)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("eurekaclaw_home")
    monkeypatch.setenv("EUREKACLAW_DIR", str(home))
    for var in HOST_VARS:
        monkeypatch.delenv(var, raising=False)
    return home


FIXTURES = Path(__file__).resolve().parent / "fixtures"
