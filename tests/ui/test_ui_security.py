"""The guard: token on every request, Host checks, CSRF on state changes, no path out of a
session, no secret in a page, and `eurekaclaw ui` refusing a public address by default."""

from __future__ import annotations

from pathlib import Path

import pytest
from ui_helpers import HOST, TOKEN, make_session, need_ui_extra

need_ui_extra()

from starlette.testclient import TestClient  # noqa: E402

from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import allowed_hosts, cookie_name, csrf_token, is_loopback, same  # noqa: E402

SID = "0123456789ab"


def client(**kw) -> TestClient:
    return TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}", follow_redirects=False, **kw
    )


def authed() -> TestClient:
    c = client()
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    return c


def test_every_page_needs_the_token(isolated_home: Path) -> None:
    make_session(isolated_home, SID)
    c = client()
    for path in (
        "/",
        f"/sessions/{SID}",
        f"/sessions/{SID}/events",
        f"/sessions/{SID}/files/paper.pdf",
        "/static/app.js",
        "/launch",
        "/nope",
    ):
        r = c.get(path)
        assert r.status_code == 401, path
        assert "eurekaclaw ui" in r.text
    assert c.post("/launch", data={"mode": "prove"}).status_code == 401


def test_wrong_token_is_refused_everywhere_it_can_be_given(isolated_home: Path) -> None:
    c = client()
    assert c.get("/?token=wrong").status_code == 401
    assert c.get("/", headers={"authorization": "Bearer wrong"}).status_code == 401
    c.cookies.set(cookie_name(TOKEN), TOKEN[:-1] + "x")
    assert c.get("/").status_code == 401
    assert c.get("/?token=").status_code == 401


def test_the_url_token_becomes_a_strict_cookie_and_leaves_the_url(isolated_home: Path) -> None:
    c = client()
    r = c.get(f"/sessions?token={TOKEN}&q=x")
    assert r.status_code == 303
    assert r.headers["location"] == "/sessions?q=x"
    cookie = r.headers["set-cookie"]
    assert f"{cookie_name(TOKEN)}={TOKEN}" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    r = c.get("/")  # the cookie alone now opens the pages
    assert r.status_code == 200 and "Sessions" in r.text
    assert "default-src 'self'" in r.headers["content-security-policy"]


async def test_a_path_like_another_host_does_not_make_an_open_redirect() -> None:
    from eurekaclaw.ui.security import Guard

    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    guard = Guard(None, token=TOKEN, hosts={HOST})  # type: ignore[arg-type]
    scope = {
        "type": "http",
        "path": "//evil.example/x",
        "query_string": f"token={TOKEN}".encode(),
        "headers": [(b"host", HOST.encode())],
    }
    await guard(scope, None, send)
    headers = dict(sent[0]["headers"])
    assert sent[0]["status"] == 303 and headers[b"location"] == b"/evil.example/x"


def test_bearer_header_works_for_scripts(isolated_home: Path) -> None:
    r = client().get("/", headers={"authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200


def test_a_foreign_host_header_is_refused_even_with_the_token(isolated_home: Path) -> None:
    c = authed()
    for host in ("evil.example", "evil.example:8765", "127.0.0.1:9999", ""):
        r = c.get("/", headers={"host": host})
        assert r.status_code == 421, host
    assert c.get("/", headers={"host": "localhost:8765"}).status_code == 200
    assert c.get("/", headers={"host": "[::1]:8765"}).status_code == 200


def test_state_changes_need_the_csrf_token_and_our_origin(isolated_home: Path) -> None:
    make_session(isolated_home, SID, status="paused", theory_status=None)
    c = authed()
    for data, headers in (
        ({}, {}),
        ({"csrf": "forged"}, {}),
        ({"csrf": csrf_token(TOKEN)}, {"origin": "http://evil.example"}),
    ):
        for path in (
            "/launch",
            f"/sessions/{SID}/pause",
            f"/sessions/{SID}/resume",
            f"/sessions/{SID}/gate",
            f"/sessions/{SID}/evaluate",
        ):
            r = c.post(path, data={"mode": "prove", "statement": "x >= 0", **data}, headers=headers)
            assert r.status_code == 403, (path, data, headers)
    assert not any(p.name != SID for p in (isolated_home / "runs").iterdir())  # nothing was launched
    # a token from another server instance is not this one's
    r = c.post(f"/sessions/{SID}/pause", data={"csrf": csrf_token("other")})
    assert r.status_code == 403
    # the right token passes the guard (the session is not running, so pausing is refused plainly)
    r = c.post(f"/sessions/{SID}/pause", data={"csrf": csrf_token(TOKEN)}, headers={"origin": f"http://{HOST}"})
    assert r.status_code == 409 and "not running" in r.text


@pytest.mark.parametrize(
    "path",
    [
        "/sessions/..%2F..%2Fetc/files/passwd",
        "/sessions/0123456789ab/files/..%2Fsession.json",
        "/sessions/0123456789ab/files/%2Fetc%2Fpasswd",
        "/sessions/0123456789ab/files/.hidden.md",
        "/sessions/0123456789ab/files/session.json",
        "/sessions/0123456789ab/files/llm_log.jsonl",
        "/sessions/0123456789ab/files/outside.md",
        "/sessions/0123456789AB/files/paper.pdf",
        "/sessions/0123456789a/files/paper.pdf",
        "/sessions/0123456789abc/files/paper.pdf",
    ],
)
def test_no_path_leads_out_of_a_session_or_to_its_internals(isolated_home: Path, tmp_path: Path, path: str) -> None:
    session = make_session(isolated_home, SID)
    secret = tmp_path / "secret.md"
    secret.write_text("SECRET-OUTSIDE")
    (session.path / "outside.md").symlink_to(secret)
    (session.path / ".hidden.md").write_text("hidden")
    r = authed().get(path)
    assert r.status_code == 404, path
    assert "SECRET-OUTSIDE" not in r.text and "hidden" not in r.text


def test_api_keys_never_reach_the_browser(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-ant-api03-SECRETSECRETSECRETSECRET"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    make_session(isolated_home, SID)
    c = authed()
    for path in (
        "/",
        f"/sessions/{SID}",
        f"/sessions/{SID}/live",
        "/launch",
        f"/sessions/{SID}/paper",
        f"/sessions/{SID}/eval",
        "/skills",
        f"/sessions/{SID}/events",
    ):
        r = c.get(path)
        assert r.status_code == 200, path
        assert key not in r.text and "SECRETSECRET" not in r.text, path


def test_helpers() -> None:
    assert same(TOKEN, TOKEN) and not same(None, TOKEN) and not same("", TOKEN) and not same(TOKEN + "x", TOKEN)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.3.4.5")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2") and not is_loopback("example.com")
    assert allowed_hosts("127.0.0.1", 8765) == {"127.0.0.1:8765", "localhost:8765", "[::1]:8765"}
    assert allowed_hosts("192.168.1.2", 8000) == {"192.168.1.2:8000"}
    # a wildcard bind (only with --allow-remote) answers to this machine's names, not to others
    import socket

    wildcard = allowed_hosts("0.0.0.0", 8000)
    assert f"{socket.gethostname().lower()}:8000" in wildcard and "evil.example:8000" not in wildcard
    # two servers on one host (cookies ignore ports) keep separate cookies, named without the token
    assert cookie_name("a") != cookie_name("b")
    assert TOKEN not in cookie_name(TOKEN)


def _routes() -> list[tuple[str, set[str]]]:
    """Every route of the app as (path with the test session filled in, methods), read from its
    router, so a route group added later is covered without editing this list."""
    from starlette.routing import Mount, Route

    guard = create_app(TOKEN, allowed_hosts("127.0.0.1", 8765))
    out = []
    for route in guard.app.routes:
        if isinstance(route, Route):
            path = route.path.replace("{sid}", SID).replace("{name}", "paper.pdf")
            out.append((path, set(route.methods or ())))
        elif isinstance(route, Mount):
            out.append((route.path + "/app.js", {"GET"}))
    return out


def test_every_route_of_every_group_is_behind_the_guard_and_posts_need_csrf(isolated_home: Path) -> None:
    make_session(isolated_home, SID, status="paused", theory_status=None)
    routes = _routes()
    posts = [path for path, methods in routes if "POST" in methods]
    # the groups: launch & gates, paper/evaluation, skills, review
    assert {
        "/launch",
        f"/sessions/{SID}/gate",
        f"/sessions/{SID}/evaluate",
        "/skills/install",
        f"/sessions/{SID}/review",
    } <= set(posts)
    anonymous, foreign, signed_in = client(), authed(), authed()
    for path, methods in routes:
        method = "POST" if "POST" in methods else "GET"
        assert anonymous.request(method, path).status_code == 401, path
        assert foreign.request(method, path, headers={"host": "evil.example:8765"}).status_code == 421, path
    for path in posts:
        r = signed_in.post(path, data={"mode": "prove", "statement": "x >= 0", "question": "why?"})
        assert r.status_code == 403 and "CSRF" in r.text, path
    assert not any(p.name != SID for p in (isolated_home / "runs").iterdir())  # nothing was launched
