"""`.env.example` documents every setting, and used as it is it changes nothing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from eurekaclaw.config import Settings, load_settings

EXAMPLE = Path(__file__).resolve().parents[3] / ".env.example"


def test_every_setting_is_listed() -> None:
    listed = set(re.findall(r"^#?\s*([A-Z0-9_]+)=", EXAMPLE.read_text(), re.MULTILINE))
    missing = {name.upper() for name in Settings.model_fields} - listed
    assert not missing, f".env.example lacks {sorted(missing)}"


def test_the_example_as_a_dotenv_gives_the_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EUREKACLAW_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    defaults = load_settings()
    shutil.copy(EXAMPLE, tmp_path / ".env")
    from_file = load_settings()
    assert from_file.model_dump() == defaults.model_dump()
