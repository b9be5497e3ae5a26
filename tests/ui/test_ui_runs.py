"""Runs started from the page are ordinary sessions of the orchestrator, with the configured
backend (here the scripted model of the e2e tests); gates and pause work as in the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ui_helpers import HOST, RESPONDER, STATEMENT, TOKEN, meta_of, need_ui_extra, wait_for

need_ui_extra()

from starlette.testclient import TestClient  # noqa: E402

from eurekaclaw.store.session import SessionDir, Workspace  # noqa: E402
from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import allowed_hosts, cookie_name, csrf_token  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_BACKEND", f"scripted:{RESPONDER}")
    monkeypatch.setenv("EUREKACLAW_OFFLINE", "1")


def authed() -> TestClient:
    c = TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}", follow_redirects=False
    )
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    return c


def launch(c: TestClient, **fields: str) -> str:
    r = c.post("/launch", data={"mode": "prove", "statement": STATEMENT, "csrf": csrf_token(TOKEN), **fields})
    assert r.status_code == 303, r.text[:500]
    location = r.headers["location"]
    assert location.startswith("/sessions/")
    return location.rsplit("/", 1)[1]


def finished(home: Path, sid: str) -> bool:
    session = SessionDir(Workspace(home).runs_dir / sid)
    return session.running_pid() is None and meta_of(home, sid)["status"] != "running"


def test_a_prove_launched_from_the_page_is_an_ordinary_session(isolated_home: Path, scripted: None) -> None:
    c = authed()
    sid = launch(c, gate="none")
    wait_for(lambda: finished(isolated_home, sid), what="the run to finish")
    meta = meta_of(isolated_home, sid)
    assert meta["backend"] == "scripted" and meta["theory_status"] == "proved"
    page = c.get(f"/sessions/{sid}").text
    assert 'id="theory-status" data-theorem="proved">proved<' in page
    assert 'data-lemma="T" data-status="proved"' in page
    # a lemma stated by its claim shows the claim as the checkers saw it, with the LaTeX beside it
    assert "For all x ∈ ℝ: (x - 1)^2 ≥ 0" in page and "LaTeX: <code>" in page
    # the CLI sees the same session, with the same status
    from typer.testing import CliRunner

    from eurekaclaw.cli import app

    listed = CliRunner().invoke(app, ["sessions", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert [r["session_id"] for r in rows] == [sid] and rows[0]["theory_status"] == "proved"
    # nothing of the run lands in the working directory (no ./results copy from the UI)
    assert meta["output_dir"] is None
    # the evaluation can be recomputed from the page, as `eval-session` does
    report = Workspace(isolated_home).runs_dir / sid / "eval_report.json"
    report.unlink()
    assert 'id="no-eval"' in c.get(f"/sessions/{sid}/eval").text
    r = c.post(f"/sessions/{sid}/evaluate", data={"csrf": csrf_token(TOKEN)})
    assert r.status_code == 303 and r.headers["location"] == f"/sessions/{sid}/eval"
    total = json.loads(report.read_text())["total"]
    assert f"{total:.3f}" in c.get(f"/sessions/{sid}/eval").text


def test_human_gate_stop_pauses_and_resume_with_approvals_finishes(isolated_home: Path, scripted: None) -> None:
    c = authed()
    sid = launch(c, gate="human")
    session = SessionDir(Workspace(isolated_home).runs_dir / sid)
    wait_for(lambda: session.file("gate.request").exists(), what="the first gate")
    page = c.get(f"/sessions/{sid}").text
    assert 'id="gate"' in page and "Continue to stage" in page
    r = c.post(f"/sessions/{sid}/gate", data={"answer": "stop", "csrf": csrf_token(TOKEN)})
    assert r.status_code == 303
    wait_for(lambda: finished(isolated_home, sid), what="the run to pause")
    assert meta_of(isolated_home, sid)["status"] == "paused"
    assert not session.file("gate.request").exists()
    # answering a gate that is not asked is refused
    r = c.post(f"/sessions/{sid}/gate", data={"answer": "approve", "csrf": csrf_token(TOKEN)})
    assert r.status_code == 409

    r = c.post(f"/sessions/{sid}/resume", data={"csrf": csrf_token(TOKEN)})
    assert r.status_code == 303 and r.headers["location"] == f"/sessions/{sid}"
    approvals = 0
    while not finished(isolated_home, sid):
        if session.file("gate.request").exists() and not session.file("gate.answer").exists():
            r = c.post(f"/sessions/{sid}/gate", data={"answer": "approve", "feedback": "ok", "csrf": csrf_token(TOKEN)})
            approvals += r.status_code == 303
        wait_for(
            lambda: (
                finished(isolated_home, sid)
                or (session.file("gate.request").exists() and not session.file("gate.answer").exists())
            ),
            what="the next gate or the end",
        )
    assert approvals >= 1
    meta = meta_of(isolated_home, sid)
    assert meta["status"] == "completed" and meta["theory_status"] == "proved"
    kinds = [e["kind"] for e in session.events()]
    assert kinds.count("gate_answer") == approvals + 1


def test_pause_from_the_page_then_resume(isolated_home: Path, scripted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_DELAY_S", "0.3")  # slow replies, so the pause lands mid-run
    c = authed()
    sid = launch(c, gate="none")
    session = SessionDir(Workspace(isolated_home).runs_dir / sid)
    wait_for(
        lambda: any(e.get("kind") == "stage" and e.get("name") == "formalize" for e in session.events()),
        what="the formalize stage",
    )
    assert 'id="pause"' in c.get(f"/sessions/{sid}").text
    r = c.post(f"/sessions/{sid}/pause", data={"csrf": csrf_token(TOKEN)})
    assert r.status_code == 303
    wait_for(lambda: finished(isolated_home, sid), what="the run to pause")
    meta = meta_of(isolated_home, sid)
    assert meta["status"] == "paused" and meta["theory_status"] != "proved"
    assert 'id="resume"' in c.get(f"/sessions/{sid}").text

    monkeypatch.setenv("DEMO_DELAY_S", "0")
    r = c.post(f"/sessions/{sid}/resume", data={"csrf": csrf_token(TOKEN)})
    assert r.status_code == 303
    wait_for(lambda: finished(isolated_home, sid), what="the resumed run")
    meta = meta_of(isolated_home, sid)
    assert meta["status"] == "completed" and meta["theory_status"] == "proved"
    kinds = [e["kind"] for e in session.events()]
    assert "session_resumed" in kinds
