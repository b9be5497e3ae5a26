"""Exit codes tell the truth through the real command: TeX present but no PDF is a partial
session (exit 1, with the reason); no TeX at all is completed (exit 0) with a note."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from test_scripted_session import RESPONDER, STATEMENT, cli

pytestmark = pytest.mark.e2e


def _fake_tex(bin_dir: Path) -> None:
    bin_dir.mkdir()
    for name in ("pdflatex", "latexmk"):
        tool = bin_dir / name
        tool.write_text("#!/bin/sh\necho '! Emergency stop: this TeX is broken on purpose'\nexit 1\n")
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def test_tex_without_a_pdf_is_partial_with_exit_1(tmp_path: Path) -> None:
    fake = tmp_path / "fakebin"
    _fake_tex(fake)
    proc = cli(
        "prove",
        STATEMENT,
        "--llm",
        f"scripted:{RESPONDER}",
        "--json",
        home=tmp_path / "home",
        cwd=tmp_path,
        PATH=f"{fake}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)
    assert result["theory_status"] == "proved"
    assert result["status"] == "partial"
    assert "paper.pdf was not built" in result["status_reason"]


def test_no_tex_at_all_is_completed_with_a_note(tmp_path: Path) -> None:
    empty = tmp_path / "nobin"
    empty.mkdir()
    proc = cli(
        "prove",
        STATEMENT,
        "--llm",
        f"scripted:{RESPONDER}",
        "--json",
        home=tmp_path / "home",
        cwd=tmp_path,
        PATH=str(empty),
    )
    result = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    assert result["status"] == "completed"
    assert "no LaTeX toolchain" in result["status_reason"]
