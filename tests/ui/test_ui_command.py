"""`eurekaclaw ui` as a user starts it: the printed URL opens the app, the bare address does
not, a busy port is one line, and Ctrl+C ends it cleanly."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
from ui_helpers import need_ui_extra

need_ui_extra()

ROOT = Path(__file__).resolve().parents[2]


def start(home: Path, *args: str, env_extra: dict[str, str] | None = None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    env.update({"EUREKACLAW_DIR": str(home), "PYTHONPATH": str(ROOT), "COLUMNS": "300", "NO_COLOR": "1"})
    env.update(env_extra or {})
    return subprocess.Popen(
        [sys.executable, "-m", "eurekaclaw", "ui", *args],
        env=env,
        cwd=home,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_printed_url_opens_the_app_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    proc = start(tmp_path, "--port", "0")
    try:
        line = proc.stderr.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", line)
        assert match, line
        base, token = match.groups()
        assert len(token) >= 40
        with httpx.Client(base_url=base) as client:
            assert client.get("/").status_code == 401
            first = client.get(f"/?token={token}")
            assert first.status_code == 303 and "eurekaclaw_ui" in first.headers["set-cookie"]
            page = client.get("/")
            assert page.status_code == 200 and "No sessions yet" in page.text
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped" in err
    assert not any(tmp_path.glob("results*"))  # nothing written to the working directory


def test_a_busy_port_is_one_line_and_exit_2(tmp_path: Path) -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        proc = start(tmp_path, "--port", str(busy.getsockname()[1]))
        _out, err = proc.communicate(timeout=60)
    finally:
        busy.close()
    assert proc.returncode == 2
    assert "cannot listen on 127.0.0.1:" in err and "Traceback" not in err


def test_ctrl_c_pauses_the_runs_the_server_started(tmp_path: Path) -> None:
    """A run started from the page lives in the server's process: stopping the server asks it
    to pause at its next checkpoint, so the session is `paused` (resumable), not torn."""
    import json

    from ui_helpers import RESPONDER, STATEMENT, wait_for

    from eurekaclaw.store.session import SessionDir, Workspace

    proc = start(
        tmp_path,
        "--port",
        "0",
        env_extra={"LLM_BACKEND": f"scripted:{RESPONDER}", "EUREKACLAW_OFFLINE": "1", "DEMO_DELAY_S": "0.3"},
    )
    try:
        match = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", proc.stderr.readline())
        assert match
        base, token = match.groups()
        with httpx.Client(base_url=base, timeout=120) as client:  # a cold start imports the engine
            client.get(f"/?token={token}")
            form = client.get("/launch").text
            csrf = re.search(r'name="csrf-token" content="([0-9a-f]+)"', form).group(1)
            r = client.post("/launch", data={"mode": "prove", "statement": STATEMENT, "gate": "none", "csrf": csrf})
            assert r.status_code == 303, r.text[:300]
            sid = r.headers["location"].rsplit("/", 1)[1]
        session = SessionDir(Workspace(tmp_path).runs_dir / sid)
        wait_for(
            lambda: any(e.get("kind") == "stage" and e.get("name") == "formalize" for e in session.events()),
            what="the formalize stage",
        )
    finally:
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    meta = json.loads(session.file("session.json").read_text())
    assert meta["status"] == "paused", meta
    assert session.running_pid() is None


def test_ui_url_prints_the_running_servers_url_until_it_stops(tmp_path: Path) -> None:
    proc = start(tmp_path, "--port", "0")
    try:
        line = proc.stderr.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/\?token=\S+)", line)
        assert match, line
        env = {**os.environ, "EUREKACLAW_DIR": str(tmp_path), "PYTHONPATH": str(ROOT), "COLUMNS": "300"}
        again = subprocess.run(
            [sys.executable, "-m", "eurekaclaw", "ui", "--url"], env=env, capture_output=True, text=True, timeout=120
        )
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip() == match.group(1)
        assert oct((tmp_path / "ui-server.json").stat().st_mode & 0o777) == "0o600"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert not (tmp_path / "ui-server.json").exists()  # the server forgot its URL on the way out
    gone = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "ui", "--url"], env=env, capture_output=True, text=True, timeout=120
    )
    assert gone.returncode == 3 and "no EurekaClaw UI server is running" in gone.stderr
