"""Hostile skill files and sources: each gets a clean rejection, never a crash or a hang."""

from __future__ import annotations

import os
import threading
import zipfile
from pathlib import Path

import pytest
from skillkit import write_skill

from eurekaclaw.errors import BadInputError
from eurekaclaw.skills.format import SkillFormatError, load_skill_file, parse_skill_text, valid_name
from eurekaclaw.skills.install import install_skills
from eurekaclaw.skills.registry import SkillRegistry

SKILL = "---\nname: {name}\ntags: [t]\nagent_roles: [prover]\ndescription: d\n---\n\nBody of {name}.\n"


def _finishes(fn, *args):
    """Run fn in a thread; (finished, result or exception). A hang guard, not a speed check."""
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["value"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(60)
    return not thread.is_alive(), box.get("value")


def test_deeply_nested_front_matter_is_a_format_error_not_a_recursion_error():
    for payload in ("[" * 5000 + "]" * 5000, "{a: " * 3000 + "1" + "}" * 3000):
        text = f"---\nname: deep\ndescription: d\nextra: {payload}\n---\n\nBody.\n"
        with pytest.raises(SkillFormatError, match="nested"):
            parse_skill_text(text)


def test_front_matter_aliases_are_refused():
    bomb = "---\nname: bomb\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b]\n---\n\nBody.\n"
    with pytest.raises(SkillFormatError, match="aliases"):
        parse_skill_text(bomb)


def test_ordinary_nesting_still_parses():
    text = "---\nname: ok\ndescription: d\ntags: [a, b]\nagent_roles: [prover]\n---\n\nBody.\n"
    assert parse_skill_text(text).meta.name == "ok"


@pytest.mark.parametrize("name", ["abc\n", "abc\r\n", "\nabc", "ab c", "Abc", "-abc", "a" * 65, ""])
def test_bad_names_are_refused(name):
    assert not valid_name(name)


def test_a_name_with_a_trailing_newline_is_rejected_in_front_matter():
    text = '---\nname: "abc\\n"\ndescription: d\n---\n\nBody.\n'
    with pytest.raises(SkillFormatError, match="name"):
        parse_skill_text(text)
    assert valid_name("abc") and valid_name("a_b-9")


def test_one_bad_file_in_the_skills_folder_does_not_break_the_listing(tmp_path):
    skills = tmp_path / "skills"
    write_skill(skills, "good")
    deep = skills / "deep"
    deep.mkdir()
    (deep / "SKILL.md").write_text("---\nname: deep\nx: " + "[" * 4000 + "]" * 4000 + "\n---\n\nB.\n")
    fifo_dir = skills / "fifo"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / "SKILL.md")
    registry = SkillRegistry(skills, [])
    done, listed = _finishes(registry.list)
    assert done, "listing the skills blocked on a FIFO"
    assert not isinstance(listed, BaseException), listed
    assert "good" in {s.meta.name for s in listed}
    problems = dict(registry.problems)
    assert any("nested" in reason for path, reason in problems.items() if "deep" in path)
    assert "fifo" not in {s.meta.name for s in listed}


def test_a_fifo_skill_file_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "SKILL.md"
    os.mkfifo(fifo)
    done, result = _finishes(load_skill_file, fifo)
    assert done
    assert isinstance(result, SkillFormatError) and "regular file" in str(result)


def test_a_fifo_given_as_archive_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "skills.zip"
    os.mkfifo(fifo)
    done, result = _finishes(install_skills, str(fifo), tmp_path / "dest")
    assert done, "install-skills blocked on a FIFO"
    assert isinstance(result, BadInputError) and "regular file" in str(result)
    assert not (tmp_path / "dest").exists()


def test_an_archive_with_one_rejected_entry_installs_nothing(tmp_path):
    archive = tmp_path / "mixed.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("good/SKILL.md", SKILL.format(name="good"))
        zf.writestr("other/SKILL.md", SKILL.format(name="other"))
        zf.writestr("../escape.md", "x")
    dest = tmp_path / "dest"
    report = install_skills(str(archive), dest)
    assert report.installed == [] and report.updated == []
    reasons = {r.name: r.reason for r in report.rejected}
    assert "traversal" in reasons["../escape.md"]
    assert "'../escape.md'" in reasons["good"] and "'../escape.md'" in reasons["other"]
    assert not (dest / "good").exists() and not (dest / "other").exists()


def test_a_clean_archive_installs(tmp_path):
    archive = tmp_path / "clean.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("good/SKILL.md", SKILL.format(name="good"))
        zf.writestr("good/notes.md", "notes")
    report = install_skills(str(archive), tmp_path / "dest")
    assert report.installed == ["good"] and not report.rejected
    assert (Path(tmp_path / "dest" / "good" / "notes.md")).read_text() == "notes"


def test_a_deeply_nested_archive_is_rejected_not_a_recursion_error(tmp_path):
    archive = tmp_path / "deep.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("/".join(["a"] * 1500) + "/SKILL.md", SKILL.format(name="deep"))
        zf.writestr("good/SKILL.md", SKILL.format(name="good"))
    report = install_skills(str(archive), tmp_path / "dest")
    assert report.installed == []
    assert any("nested deeper" in r.reason for r in report.rejected)


def test_a_deeply_nested_folder_is_rejected_not_a_recursion_error(tmp_path):
    src = tmp_path / "src"
    write_skill(src, "good")
    holder = write_skill(src, "holder")
    deep = holder.joinpath(*(["a"] * 60))
    os.makedirs(deep)
    (deep / "notes.md").write_text("deep")
    stray = src.joinpath(*(["b"] * 60))
    os.makedirs(stray)
    report = install_skills(str(src), tmp_path / "dest")
    assert report.installed == ["good"]
    reasons = {r.name: r.reason for r in report.rejected}
    assert "nested deeper" in reasons["holder"]
    assert any("nested deeper" in reason for reason in reasons.values() if reason != reasons["holder"])
