"""A revision that fails while it is being committed leaves the session exactly as it was: every
file (records, session.json, versions.json, the evaluation report) byte-identical, no
paper_v<n>.* or references_v<n>.bib left behind, and an error that says so. A revision that
succeeded is not turned into a traceback by a history line that cannot be written."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import restage_responder as responder
from reviewkit import copy_session, finished_session

from eurekaclaw.config import load_settings
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.review import restage
from eurekaclaw.review.history import ReviewStore
from eurekaclaw.review.revise import RevisionOutcome
from eurekaclaw.store.files import read_json
from eurekaclaw.store.session import SessionDir
from eurekaclaw.types.artifacts import EvalReport

FIX_L2 = "THEORY: the proof of Lemma L2 skips the union bound; fix it."
PROSE = "PROSE: explain the union bound in the introduction."
LOGS = {SessionDir.LLM_LOG, SessionDir.USAGE, SessionDir.EVENTS, "history.jsonl"}


@pytest.fixture(scope="module")
def unproved(tmp_path_factory: pytest.TempPathFactory) -> SessionDir:
    return finished_session(tmp_path_factory.mktemp("unproved"), proved=False)


@pytest.fixture
def session(unproved: SessionDir, isolated_home: Path) -> SessionDir:
    copied = copy_session(unproved, isolated_home)
    report = EvalReport(session_id=copied.session_id, total=0.111, notes=["version 1"])
    (copied.path / "eval_report.json").write_text(report.model_dump_json())
    return copied


def snapshot(session: SessionDir) -> dict[str, str]:
    """Every file of the session folder, review/ included, but the logs and the re-run's work copy."""
    return {
        str(p.relative_to(session.path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(session.path.rglob("*"))
        if p.is_file()
        and p.name not in LOGS
        and not p.name.endswith(".lock")
        and not any(part.startswith("work-v") for part in p.relative_to(session.path).parts)
    }


def revise(session: SessionDir, feedback: str) -> RevisionOutcome:
    from eurekaclaw.review.runner import ReviewRunner

    run = ReviewRunner(load_settings(), session, backend=ScriptedBackend(responder=responder.respond, model="restage"))
    return asyncio.run(run.revise(feedback))


def orphans(session: SessionDir) -> list[str]:
    return sorted(
        p.name for p in session.path.iterdir() if p.name.startswith(("paper_v", "references_v", ".")) and p.is_file()
    )


def no_space(name: str) -> OSError:
    return OSError(28, "No space left on device", name)


def fail_replace_of(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The commit's rename of <name> fails (its rollback's renames still work)."""
    real = os.replace

    def flaky(src: Any, dst: Any) -> None:
        if Path(src).name == f".{name}.new":
            raise no_space(str(dst))
        real(src, dst)

    monkeypatch.setattr(restage.os, "replace", flaky)


def fail_copy_of(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    real = shutil.copy2

    def flaky(src: Any, dst: Any, **kw: Any) -> Any:
        if Path(dst).name == f".{name}.new":
            Path(dst).write_text("half")  # a copy cut short
            raise no_space(str(dst))
        return real(src, dst, **kw)

    monkeypatch.setattr(restage.shutil, "copy2", flaky)


def fail_method(monkeypatch: pytest.MonkeyPatch, cls: type, method: str, name: str) -> None:
    def boom(*args: Any, **kw: Any) -> None:
        raise no_space(name)

    monkeypatch.setattr(cls, method, boom)


FAILURES = {
    "the last record's rename": lambda mp: fail_replace_of(mp, "eval_report.json"),
    "a record's rename after the paper's": lambda mp: fail_replace_of(mp, "theory_state.json"),
    "copying the paper": lambda mp: fail_copy_of(mp, "paper_v2.md"),
    "session.json": lambda mp: fail_method(mp, SessionDir, "save_meta", "session.json"),
    "versions.json": lambda mp: fail_method(mp, ReviewStore, "add_version", "versions.json"),
}


@pytest.mark.parametrize("point", sorted(FAILURES))
def test_a_theory_revision_that_fails_to_commit_changes_nothing(
    session: SessionDir, monkeypatch: pytest.MonkeyPatch, point: str
) -> None:
    before = snapshot(session)
    FAILURES[point](monkeypatch)
    outcome = revise(session, FIX_L2)
    assert not outcome.ok and outcome.version is None
    assert "No space left on device" in outcome.error and "version 1 stays current" in outcome.error
    assert snapshot(session) == before
    assert orphans(session) == []
    assert session.load_meta().theory_status != "proved"  # the re-run proved it; the session still does not say so
    assert not (session.path / "review" / "versions.json").exists()
    assert not any(n.startswith("evaluation of version 2") for n in outcome.notes)


def test_a_commit_that_cannot_be_undone_does_not_claim_nothing_changed(
    session: SessionDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.replace

    def flaky(src: Any, dst: Any) -> None:
        if Path(src).name == ".eval_report.json.new":
            raise no_space(str(dst))
        if Path(src).name == ".theory_state.json.old":  # the rollback's rename back
            raise OSError(30, "Read-only file system", str(dst))
        real(src, dst)

    monkeypatch.setattr(restage.os, "replace", flaky)
    outcome = revise(session, FIX_L2)
    assert not outcome.ok
    assert "could not restore theory_state.json" in outcome.error and "stays current" not in outcome.error
    assert (session.path / ".theory_state.json.old").is_file()  # the earlier content, as the error says


@pytest.mark.parametrize("feedback", [FIX_L2, PROSE])
def test_a_revision_whose_history_cannot_be_written_still_succeeds(
    session: SessionDir, monkeypatch: pytest.MonkeyPatch, feedback: str
) -> None:
    fail_method(monkeypatch, ReviewStore, "append", "history.jsonl")
    outcome = revise(session, feedback)
    assert outcome.ok and outcome.version == 2, outcome.text()
    assert any(n.startswith("warning: this revision is not recorded in review/history.jsonl") for n in outcome.notes)
    # one scripted model proves and reviews: the re-proved theorem is self-reviewed, never "proved"
    assert session.load_meta().theory_status == ("self_reviewed" if feedback == FIX_L2 else "in_progress")
    assert [v["version"] for v in read_json(session.path / "review" / "versions.json")["versions"]] == [2]
    assert {"paper_v2.md", "paper_v2.tex", "references_v2.bib"} <= set(orphans(session))
    assert not [name for name in orphans(session) if name.startswith(".")]  # no .<name>.old / .new left


@pytest.mark.parametrize("point", ["versions.json", "paper_v2.md"])
def test_a_prose_revision_that_fails_to_write_changes_nothing(
    session: SessionDir, monkeypatch: pytest.MonkeyPatch, point: str
) -> None:
    from eurekaclaw.review import revise as revise_module

    before = snapshot(session)
    if point == "versions.json":
        fail_method(monkeypatch, ReviewStore, "add_version", point)
    else:
        real = revise_module.atomic_write_text

        def flaky(path: Path, text: str, **kw: Any) -> None:
            if path.name == point:
                raise no_space(str(path))
            real(path, text, **kw)

        monkeypatch.setattr(revise_module, "atomic_write_text", flaky)
    outcome = revise(session, PROSE)
    assert not outcome.ok and outcome.version is None
    assert outcome.error.startswith("the revision could not write ") and f"{point}: No space left" in outcome.error
    assert "version 1 stays current" in outcome.error
    assert snapshot(session) == before
    assert orphans(session) == []
