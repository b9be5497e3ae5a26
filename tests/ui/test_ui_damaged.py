"""Sessions a tester broke by hand: a naive timestamp, a corrupt session.json, a non-Latin-1
path, the URL of the running server, a git install in offline mode. The pages and
`eurekaclaw sessions` list everything, move nothing and never answer 500."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner
from ui_helpers import HOST, TOKEN, make_session, need_ui_extra

need_ui_extra()

from starlette.testclient import TestClient  # noqa: E402

from eurekaclaw.cli import app as cli_app  # noqa: E402
from eurekaclaw.store.session import Workspace  # noqa: E402
from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import LaunchCodes, allowed_hosts, cookie_name, csrf_token  # noqa: E402

A, B, C = "aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"
runner = CliRunner()


def cli(args: list[str]):  # type: ignore[no-untyped-def]
    return runner.invoke(cli_app, args, env={"COLUMNS": "300", "NO_COLOR": "1"})


def authed(launch: LaunchCodes | None = None) -> TestClient:
    c = TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765), launch),
        base_url=f"http://{HOST}",
        follow_redirects=False,
        raise_server_exceptions=False,
    )
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    return c


def snapshot(home: Path) -> dict[str, bytes]:
    runs = Workspace(home).runs_dir
    return {str(p.relative_to(runs)): p.read_bytes() for p in sorted(runs.rglob("*")) if p.is_file()}


def make_naive(home: Path, sid: str) -> None:
    path = Workspace(home).runs_dir / sid / "session.json"
    meta = json.loads(path.read_text())
    meta["created_at"] = "2026-11-20T10:00:00"  # no time zone, as a hand edit leaves it
    meta["updated_at"] = "2026-11-20T10:05:00"
    path.write_text(json.dumps(meta))
    pipeline = Workspace(home).runs_dir / sid / "pipeline.json"
    data = json.loads(pipeline.read_text())
    data["stages"][0]["started_at"] = "2026-11-20T10:00:00"  # naive start, aware end
    pipeline.write_text(json.dumps(data))


def test_a_naive_timestamp_is_read_as_utc_in_the_browser_and_the_cli(isolated_home: Path) -> None:
    make_session(isolated_home, A)
    make_session(isolated_home, B)
    make_naive(isolated_home, A)
    c = authed()
    page = c.get("/")
    assert page.status_code == 200 and A in page.text and B in page.text
    assert "2026-11-20 10:00" in page.text
    assert c.get(f"/sessions/{A}").status_code == 200
    table = cli(["sessions"])
    assert table.exit_code == 0, table.output
    assert A in table.output and B in table.output
    listed = json.loads(cli(["sessions", "--json"]).output)
    naive = next(row for row in listed if row["session_id"] == A)
    assert naive["created_at"] in ("2026-11-20T10:00:00Z", "2026-11-20T10:00:00+00:00")
    assert [row["session_id"] for row in listed] == [B, A]  # sorted with the aware ones, newest first


def test_a_corrupt_session_json_is_listed_as_damaged_and_nothing_is_moved(isolated_home: Path) -> None:
    make_session(isolated_home, A)
    make_session(isolated_home, B)
    (Workspace(isolated_home).runs_dir / A / "session.json").write_text("{not json")
    # nothing left to rebuild from: only a corrupt session.json
    lone = Workspace(isolated_home).runs_dir / C
    lone.mkdir()
    (lone / "session.json").write_text('{"session_id": "cccccccccccc", "mode": "sing"}')
    before = snapshot(isolated_home)
    c = authed()
    page = c.get("/")
    assert page.status_code == 200
    for sid in (A, B, C):
        assert f'data-session="{sid}"' in page.text
    assert f'data-damaged="{A}"' in page.text and f'data-damaged="{C}"' in page.text
    assert f'data-damaged="{B}"' not in page.text
    assert "session.json is damaged" in page.text
    only_damaged = c.get("/?status=damaged").text
    assert f'data-session="{A}"' in only_damaged and f'data-session="{C}"' in only_damaged
    assert f'data-session="{B}"' not in only_damaged
    assert f'data-session="{C}"' in c.get("/?q=damaged").text
    one = c.get(f"/sessions/{A}")
    assert one.status_code == 200 and "session.json is damaged" in one.text
    assert c.get(f"/sessions/{C}").status_code == 200
    table = cli(["sessions"])
    assert table.exit_code == 0, table.output
    assert A in table.output and C in table.output and "damaged" in table.output
    listed = {row["session_id"]: row for row in json.loads(cli(["sessions", "--json"]).output)}
    assert set(listed) == {A, B, C}
    assert "session.json is damaged" in listed[A]["damaged"] and listed[A]["mode"] == "prove"
    assert listed[C]["status"] == "damaged" and "damaged" not in listed[B]
    # page views and listings never move, rebuild or write a file
    assert snapshot(isolated_home) == before
    assert not list(Workspace(isolated_home).runs_dir.rglob("*.corrupt-*"))


def test_a_non_latin1_path_is_a_404_or_a_redirect_never_a_500(isolated_home: Path) -> None:
    make_session(isolated_home, A)
    c = authed()
    for path in ("/sessions/∑αβ", "/∑", "/sessions/ünï/files/x.pdf", f"/sessions/{A}/files/∑.pdf", "/static/∑.css"):
        assert c.get(path).status_code == 404, path
    r = c.get(f"/sessions/∑?token={TOKEN}")
    assert r.status_code == 303 and r.headers["location"] == "/sessions/%E2%88%91"


def test_a_launch_code_opens_the_app_once_and_then_never_again(isolated_home: Path) -> None:
    now = [100.0]
    codes = LaunchCodes(ttl_s=60.0, clock=lambda: now[0])
    c = TestClient(create_app(TOKEN, allowed_hosts("127.0.0.1", 8765), codes), base_url=f"http://{HOST}")
    code = codes.issue()
    assert TOKEN not in code
    r = c.get(f"/open/{code}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert f"{cookie_name(TOKEN)}={TOKEN}" in r.headers["set-cookie"]
    fresh = TestClient(create_app(TOKEN, allowed_hosts("127.0.0.1", 8765), codes), base_url=f"http://{HOST}")
    assert fresh.get(f"/open/{code}", follow_redirects=False).status_code == 401  # single use
    late = codes.issue()
    now[0] += 61.0
    assert fresh.get(f"/open/{late}", follow_redirects=False).status_code == 401  # expired
    assert fresh.get("/open/", follow_redirects=False).status_code == 401
    assert fresh.get("/", follow_redirects=False).status_code == 401  # the failed codes gave no cookie


def test_ui_url_prints_the_running_servers_url_or_says_none_runs(isolated_home: Path) -> None:
    from eurekaclaw.ui.server import URL_FILE, forget_url, record_url

    none = cli(["ui", "--url"])
    assert none.exit_code == 3
    assert [ln for ln in none.output.splitlines() if ln.strip()] == [
        "no EurekaClaw UI server is running; start one with `eurekaclaw ui`"
    ]
    url = f"http://127.0.0.1:8765/?token={TOKEN}"
    path = record_url(url)
    assert path == isolated_home / URL_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it carries the token
    shown = cli(["ui", "--url"])
    assert shown.exit_code == 0 and shown.output.strip() == url
    forget_url(path)
    assert not path.exists()
    # a server that died without cleaning up is not running
    path.write_text(json.dumps({"url": url, "pid": 2**22 + 12345}))
    assert cli(["ui", "--url"]).exit_code == 3
    path.write_text(json.dumps({"url": url, "pid": 0}))
    assert cli(["ui", "--url"]).exit_code == 3
    path.write_text("{garbage")
    assert cli(["ui", "--url"]).exit_code == 3


def test_install_from_a_git_url_honours_offline_mode(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    called = tmp_path / "git-was-called"
    git = bin_dir / "git"
    git.write_text(f"#!/bin/sh\ntouch {called}\nexit 1\n")
    git.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("EUREKACLAW_OFFLINE", "1")
    r = authed().post(
        "/skills/install", data={"csrf": csrf_token(TOKEN), "source": "https://example.invalid/skills.git"}
    )
    assert r.status_code == 400
    assert "offline mode (EUREKACLAW_OFFLINE) is on" in r.text and "was not cloned" in r.text
    assert not called.exists()
    assert not Workspace(isolated_home).skills_dir.exists() or not any(Workspace(isolated_home).skills_dir.iterdir())
    # the terminal's install-skills refuses the same way (one line, exit 2)
    result = cli(["install-skills", "https://example.invalid/skills.git"])
    assert result.exit_code == 2 and "offline mode" in result.output
    assert not called.exists()
    # online, the same URL does reach git (the refusal above was offline mode's, not the URL's)
    monkeypatch.delenv("EUREKACLAW_OFFLINE")
    authed().post("/skills/install", data={"csrf": csrf_token(TOKEN), "source": "https://example.invalid/skills.git"})
    assert called.exists()


def test_a_damaged_or_zero_run_pid_is_not_running_and_is_left_in_place(isolated_home: Path) -> None:
    session = make_session(isolated_home, A, status="running", theory_status=None)
    c = authed()
    for content in ("{garbage", json.dumps({"pid": 0}), json.dumps({"pid": -1}), json.dumps([1]), '{"pid": "x"}'):
        session.file("run.pid").write_text(content)
        assert session.running_pid() is None, content
        page = c.get("/")
        assert page.status_code == 200 and "st-interrupted" in page.text, content
        assert c.get(f"/sessions/{A}").status_code == 200
        assert session.file("run.pid").read_text() == content  # never moved aside by a page view


def test_a_session_json_damaged_beside_odd_events_is_still_listed(isolated_home: Path) -> None:
    session = make_session(isolated_home, A)
    session.file("session.json").write_text("[]")
    session.file("events.jsonl").write_text('[1, 2]\n"text"\n')  # lines that are JSON but not events
    c = authed()
    page = c.get("/")
    assert page.status_code == 200 and f'data-damaged="{A}"' in page.text
    assert c.get(f"/sessions/{A}").status_code == 200
    assert cli(["sessions"]).exit_code == 0
