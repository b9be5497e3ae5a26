"""Hostile requests and hostile session folders against the browser app: redirects that try to
leave the app's origin, symbolic links that try to lead out of a session folder, and a process
listing that tries to read the token off a command line."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from starlette.testclient import TestClient  # noqa: E402

from eurekaclaw.store.session import SessionDir, Workspace  # noqa: E402
from eurekaclaw.types.tasks import SessionMeta  # noqa: E402
from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import Guard, allowed_hosts, cookie_name, is_local, local_location  # noqa: E402

TOKEN = "hostile-test-token-0123456789abcdef"
HOST = "127.0.0.1:8765"
ORIGIN = f"http://{HOST}/"
SID = "abcdefabcdef"
ROOT = Path(__file__).resolve().parents[2]


def stays_home(location: str) -> bool:
    """A browser following this Location stays on the app's origin (browsers read "\\" as "/")."""
    decoded = unquote(location).replace("\\", "/")
    if not decoded.startswith("/") or decoded.startswith("//"):
        return False
    return urlsplit(urljoin(ORIGIN, location)).netloc == HOST


async def guard_redirect(path: str) -> str:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    guard = Guard(None, token=TOKEN, hosts={HOST})  # type: ignore[arg-type]
    scope = {
        "type": "http",
        "path": path,
        "query_string": f"token={TOKEN}&q=x".encode(),
        "headers": [(b"host", HOST.encode())],
    }
    await guard(scope, None, send)
    assert sent[0]["status"] == 303, sent
    return dict(sent[0]["headers"])[b"location"].decode("latin-1")


# decoded request paths (as the server sees them after percent-decoding %5C, %2F, ...)
HOSTILE_PATHS = [
    "/\\evil.example",  # /%5Cevil.example
    "//evil.example",
    "//evil.example/x",
    "/\\/evil.example",
    "/\\\\evil.example",
    "///evil.example",
    "/\t/evil.example",  # browsers drop tabs and newlines inside URLs
    "/\n/evil.example",
    "/ /evil.example",
    "/%2F%2Fevil.example",  # /%252F%252F: decoded once it is a literal %2F
    "/%5Cevil.example",
    "\\\\evil.example",
    "/\u2215\u2215evil.example",  # division slashes
    "/\uff0f\uff0fevil.example",  # full-width solidus
]


@pytest.mark.parametrize("path", HOSTILE_PATHS)
async def test_the_token_redirect_never_leaves_the_origin(path: str) -> None:
    """Attack: an open redirect through the token exchange (/%5Cevil.example?token=…)."""
    location = await guard_redirect(path)
    assert stays_home(location), (path, location)
    assert TOKEN not in location


@pytest.mark.parametrize("raw", ["/%5Cevil.example", "//evil.example", "/%2F%2Fevil.example", "/%5C%5Cevil.example"])
def test_encoded_paths_through_the_whole_app_stay_home(raw: str) -> None:
    """Attack: the percent-encoded variants sent as a real request line."""
    client = TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}", follow_redirects=False
    )
    response = client.get(f"http://{HOST}{raw}?token={TOKEN}", headers={"host": HOST})
    assert response.status_code == 303
    assert stays_home(response.headers["location"]), response.headers["location"]


def test_fuzzed_paths_always_give_a_local_location() -> None:
    """Attack: any mix of slashes, backslashes, encodings and blanks; the Location stays home."""
    rng = random.Random(28)
    alphabet = ["/", "\\", "%2F", "%5C", "%", "\t", " ", "\r", "\n", "e", ".", ":", "@", "∑", "\x00", "?", "#"]
    for _ in range(3000):
        path = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        location = local_location(path)
        assert is_local(location) and stays_home(location), (path, location)


def _hostile_session(home: Path, outside: Path) -> SessionDir:
    session = SessionDir(Workspace(home).runs_dir / SID)
    session.path.mkdir(parents=True)
    session.save_meta(SessionMeta(session_id=SID, mode="prove", statement="x >= 0", status="completed"))
    secret_theory = {"status": "proved", "lemma_dag": {"T": {"id": "T", "statement": "OUTSIDE-SECRET"}}}
    (outside / "theory.json").write_text(json.dumps(secret_theory))
    (outside / "events.jsonl").write_text(json.dumps({"ts": "2026-01-01T00:00:00+00:00", "kind": "OUTSIDE-SECRET"}))
    (outside / "notes.md").write_text("OUTSIDE-SECRET")
    (outside / "curves.csv").write_text("t,OUTSIDE-SECRET\n1,2\n")
    os.symlink(outside / "theory.json", session.file("theory_state.json"))
    os.symlink(outside / "events.jsonl", session.file("events.jsonl"))
    os.symlink(outside / "notes.md", session.file("paper.md"))
    os.symlink(outside / "curves.csv", session.file("regret_curves.csv"))
    os.symlink(session.file("session.json"), session.file("paper.pdf"))  # the KeyError: '.json' case
    os.symlink(outside, session.file("data"))
    os.symlink(session.file("nowhere"), session.file("dangling.pdf"))
    return session


def test_symlinks_in_a_session_folder_are_never_followed_out(isolated_home: Path, tmp_path: Path) -> None:
    """Attack: symbolic links inside a session folder pointing outside it (and at session.json)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    _hostile_session(isolated_home, outside)
    client = TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)),
        base_url=f"http://{HOST}",
        follow_redirects=False,
        raise_server_exceptions=False,
    )
    client.cookies.set(cookie_name(TOKEN), TOKEN)
    pages = ["/", f"/sessions/{SID}", f"/sessions/{SID}/paper", f"/sessions/{SID}/eval", f"/sessions/{SID}/review"]
    files = ["paper.pdf", "paper.md", "regret_curves.csv", "dangling.pdf", "data", "theory_state.json"]
    for url in pages + [f"/sessions/{SID}/files/{name}" for name in files]:
        response = client.get(url)
        assert response.status_code in (200, 404), (url, response.status_code, response.text[:300])
        assert "OUTSIDE-SECRET" not in response.text, url
    page = client.get(f"/sessions/{SID}").text
    assert f"/sessions/{SID}/files/paper.pdf" not in page  # a link is not listed as a file
    with client.stream("GET", f"/sessions/{SID}/events") as stream:
        body = b"".join(stream.iter_bytes())
    assert b"OUTSIDE-SECRET" not in body


def test_the_token_never_appears_on_a_command_line(tmp_path: Path) -> None:
    """Attack: read the token off `ps` after `eurekaclaw ui --open` started the browser."""
    seen = tmp_path / "browser-argv"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> {seen}\n')
    browser.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    env.update({"EUREKACLAW_DIR": str(tmp_path), "PYTHONPATH": str(ROOT), "COLUMNS": "300", "BROWSER": str(browser)})
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "eurekaclaw", "ui", "--port", "0", "--open"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stderr.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", line)
        assert match, line
        base, token = match.groups()
        deadline = time.monotonic() + 60
        while not (seen.exists() and seen.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        opened = seen.read_text().strip()
        assert opened.startswith(f"{base}/open/") and token not in opened
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                argv = cmdline.read_bytes()
            except OSError:
                continue
            assert token.encode() not in argv, cmdline
        import httpx

        with httpx.Client() as client:
            first = client.get(opened)
            assert first.status_code == 303 and token in first.headers["set-cookie"]
            assert first.headers["location"] == "/"
        with httpx.Client() as other:
            assert other.get(opened).status_code == 401  # the launch code is spent
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert proc.returncode == 0
