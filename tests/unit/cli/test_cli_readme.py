"""The README a newcomer follows in a fresh clone: its links resolve inside the repository and
its TeX package list is the one .ci/run installs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TEX = re.compile(r"\btexlive-[a-z-]+\b|\blatexmk\b|\blmodern\b")


def test_relative_links_resolve_inside_the_clone() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)", text) + re.findall(r"`(\.\./[^`]+)`", text)
    local = [t for t in targets if "://" not in t]
    assert local, "the README links its docs"
    for target in local:
        path = (ROOT / target).resolve()
        assert path.is_relative_to(ROOT), f"{target} points outside the repository"
        assert path.exists(), f"{target} does not exist in a clone"


def test_one_tex_package_list_everywhere() -> None:
    ci = set(TEX.findall((ROOT / ".ci" / "run").read_text(encoding="utf-8")))
    readme = set(TEX.findall((ROOT / "README.md").read_text(encoding="utf-8")))
    paper_doc = set(TEX.findall((ROOT / "docs" / "paper-and-evaluation.md").read_text(encoding="utf-8")))
    assert "texlive-science" in ci
    assert readme == ci and paper_doc == ci
