from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from eurekaclaw.errors import AmbiguousSessionError, BadInputError, SessionNotFoundError
from eurekaclaw.store import (
    append_jsonl,
    atomic_write_json,
    read_json,
    read_jsonl,
    read_model,
    update_json,
)
from eurekaclaw.store.session import Workspace
from eurekaclaw.types.artifacts import TheoryState
from eurekaclaw.types.tasks import SessionMeta


def test_crash_between_temp_write_and_replace_keeps_old_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    atomic_write_json(target, {"version": 1})
    # A child process writes the temp file, then dies (os._exit) where os.replace would run.
    script = textwrap.dedent(
        f"""
        import os
        from eurekaclaw.store import files
        def die(src, dst):
            os._exit(9)
        files.os.replace = die
        files.atomic_write_json({str(target)!r}, {{"version": 2, "payload": "x" * 100000}})
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert proc.returncode == 9
    assert json.loads(target.read_text()) == {"version": 1}
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "state.json"]
    assert leftovers and all(name.startswith(".state.json.") for name in leftovers)
    # the next write still succeeds and readers never saw a torn file
    atomic_write_json(target, {"version": 3})
    assert read_json(target) == {"version": 3}


def test_corrupt_file_is_quarantined_not_overwritten(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    target = tmp_path / "persistent.json"
    target.write_text('{"half": ')
    assert read_json(target, default={}) == {}
    moved = list(tmp_path.glob("persistent.json.corrupt-*"))
    assert len(moved) == 1 and moved[0].read_text() == '{"half": '
    assert not target.exists()
    assert "moved aside" in caplog.text


def test_model_that_fails_validation_is_quarantined(tmp_path: Path) -> None:
    target = tmp_path / "theory_state.json"
    target.write_text(json.dumps({"status": "definitely-not-a-status"}))
    assert read_model(target, TheoryState) is None
    assert list(tmp_path.glob("theory_state.json.corrupt-*"))


def _bump_many(path: str, n: int) -> None:
    for _ in range(n):
        update_json(Path(path), lambda d: {"count": (d or {}).get("count", 0) + 1}, default={})


def test_two_processes_updating_one_shared_file_lose_no_update(tmp_path: Path) -> None:
    target = tmp_path / "shared.json"
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_bump_many, args=(str(target), 40)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert read_json(target) == {"count": 80}


def test_jsonl_skips_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    append_jsonl(path, {"kind": "a"})
    append_jsonl(path, {"kind": "b"})
    with path.open("a") as fh:
        fh.write('{"kind": "tor')
    assert [e["kind"] for e in read_jsonl(path)] == ["a", "b"]


def _make_session(ws: Workspace, sid: str) -> None:
    path = ws.runs_dir / sid
    path.mkdir(parents=True)
    atomic_write_json(path / "session.json", SessionMeta(session_id=sid, mode="prove", statement="s"))


def test_session_prefix_resolution(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    _make_session(ws, "abcdef123456")
    _make_session(ws, "abcdef999999")
    _make_session(ws, "0123456789ab")
    assert ws.resolve("0123456").session_id == "0123456789ab"
    assert ws.resolve("abcdef12").session_id == "abcdef123456"
    with pytest.raises(AmbiguousSessionError):
        ws.resolve("abcdef")
    with pytest.raises(SessionNotFoundError):
        ws.resolve("ffffff")
    with pytest.raises(BadInputError):
        ws.resolve("abc")
    with pytest.raises(BadInputError):
        ws.resolve("../../etc")


def test_new_session_ids_are_unique_and_prefixable(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ids = {ws.new_session().session_id for _ in range(50)}
    assert len(ids) == 50
    assert all(len(i) == 12 and os.path.isdir(ws.runs_dir / i) for i in ids)
