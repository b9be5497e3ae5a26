"""Sorting the sessions list on the server: by date (newest first by default), status, domain
and cost, from the query string and the column headers, kept together with the filters."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from ui_helpers import HOST, TOKEN, make_session, need_ui_extra

need_ui_extra()

from starlette.testclient import TestClient  # noqa: E402

from eurekaclaw.store.files import atomic_write_json  # noqa: E402
from eurekaclaw.store.session import SessionDir, Workspace  # noqa: E402
from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import allowed_hosts, cookie_name  # noqa: E402

# id: (created day, status, domain, cost in $, cost known)
SESSIONS = {
    "aaaaaaaaaaa1": (1, "completed", "number theory", 0.50, True),
    "aaaaaaaaaaa2": (2, "failed", "analysis", 0.05, True),
    "aaaaaaaaaaa3": (3, "paused", "bandits", 2.00, False),  # a call without a price: cost unknown
    "aaaaaaaaaaa4": (4, "completed", "algebra", 1.00, True),
}
DAMAGED = "aaaaaaaaaaa5"


def _setup(home: Path) -> None:
    for sid, (day, status, domain, cost, known) in SESSIONS.items():
        session = make_session(home, sid, status=status, cost_known=known)
        meta = session.load_meta()
        assert meta is not None
        meta.created_at = datetime(2026, 11, day, 12, 0, tzinfo=UTC)
        meta.domain, meta.cost_usd = domain, cost
        session.save_meta(meta)
    damaged = SessionDir(Workspace(home).runs_dir / DAMAGED)
    damaged.path.mkdir(parents=True)
    damaged.file("session.json").write_text("{torn")
    atomic_write_json(damaged.file("pipeline.json"), {"stages": "nonsense"})


def _client() -> TestClient:
    c = TestClient(create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}")
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    return c


def _order(html: str) -> list[str]:
    return re.findall(r'<tr data-session="([0-9a-f]{12})">', html)


def test_default_is_newest_first_and_each_column_sorts(isolated_home: Path) -> None:
    _setup(isolated_home)
    c = _client()
    default = _order(c.get("/").text)
    # the damaged session's date is its folder's mtime (now): newest
    assert default == [DAMAGED, "aaaaaaaaaaa4", "aaaaaaaaaaa3", "aaaaaaaaaaa2", "aaaaaaaaaaa1"]
    assert _order(c.get("/?sort=date&order=asc").text) == default[::-1]
    # an unknown cost and a damaged session's unknown cost go last, never first as if $0
    assert _order(c.get("/?sort=cost").text) == [
        "aaaaaaaaaaa4",
        "aaaaaaaaaaa1",
        "aaaaaaaaaaa2",
        DAMAGED,
        "aaaaaaaaaaa3",
    ]
    assert _order(c.get("/?sort=cost&order=asc").text)[:3] == ["aaaaaaaaaaa2", "aaaaaaaaaaa1", "aaaaaaaaaaa4"]
    # status alphabetically; equal statuses stay newest first
    assert _order(c.get("/?sort=status").text) == [
        "aaaaaaaaaaa4",
        "aaaaaaaaaaa1",
        DAMAGED,
        "aaaaaaaaaaa2",
        "aaaaaaaaaaa3",
    ]
    # a damaged session has no domain: last in both directions
    by_domain = _order(c.get("/?sort=domain").text)
    assert by_domain == ["aaaaaaaaaaa4", "aaaaaaaaaaa2", "aaaaaaaaaaa3", "aaaaaaaaaaa1", DAMAGED]
    assert _order(c.get("/?sort=domain&order=desc").text) == by_domain[:4][::-1] + [DAMAGED]
    # nonsense parameters fall back to the default, never an error
    r = c.get("/?sort=__class__&order=sideways")
    assert r.status_code == 200 and _order(r.text) == default


def test_headers_link_to_the_sort_and_keep_the_filter(isolated_home: Path) -> None:
    _setup(isolated_home)
    c = _client()
    html = c.get("/?q=a&status=completed&sort=cost&order=desc").text
    assert _order(html) == ["aaaaaaaaaaa4", "aaaaaaaaaaa1"]  # filtered, then sorted
    links = dict(re.findall(r'<a href="(/\?[^"]+)" data-sort="(\w+)"', html))
    by_key = {key: href.replace("&amp;", "&") for href, key in links.items()}
    # the current column's header reverses it; the others start in their natural direction
    assert by_key["cost"] == "/?q=a&status=completed&sort=cost&order=asc"
    assert by_key["date"] == "/?q=a&status=completed&sort=date&order=desc"
    assert by_key["status"] == "/?q=a&status=completed&sort=status&order=asc"
    assert 'data-sort="cost" aria-sort="descending"' in html
    # the filter form carries the sort along
    assert '<input type="hidden" name="sort" value="cost">' in html
    assert '<input type="hidden" name="order" value="desc">' in html
    followed = c.get(by_key["cost"]).text
    assert _order(followed) == ["aaaaaaaaaaa1", "aaaaaaaaaaa4"]


def test_a_filter_text_with_url_characters_survives_the_header_links(isolated_home: Path) -> None:
    _setup(isolated_home)
    c = _client()
    html = c.get("/", params={"q": "x, x^2 - 2x + 1 >= 0"}).text
    assert len(_order(html)) == 4
    href = re.search(r'<a href="(/\?[^"]+)" data-sort="domain"', html)
    assert href is not None and "&" not in href.group(1).replace("&amp;", "")
    # following the header keeps the same filter, now sorted by domain
    assert _order(c.get(href.group(1).replace("&amp;", "&")).text) == [
        "aaaaaaaaaaa4",
        "aaaaaaaaaaa2",
        "aaaaaaaaaaa3",
        "aaaaaaaaaaa1",
    ]
