"""The browser shows the theorem as theory_view computes it: only a proof with independent
support gets a green "proved" chip; self-reviewed is amber; contradicted, refuted and capped are
red, in the sessions list, the session page's summary and the DAG; the claim checked is the
theorem shown, with the narrowing sentence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from surface_kit import SCOPE_SENTENCE, write_session
from ui_helpers import HOST, TOKEN, need_ui_extra

need_ui_extra()

from starlette.testclient import TestClient  # noqa: E402

from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import allowed_hosts, cookie_name  # noqa: E402

KINDS = {
    "d00000000001": ("proved", "green", "proved"),
    "d00000000002": ("self_reviewed", "amber", "self-reviewed"),
    "d00000000003": ("old_self_review", "amber", "self-reviewed"),
    "d00000000004": ("contradicted", "red", "contradicted"),
    "d00000000005": ("refuted", "red", "refuted"),
    "d00000000006": ("capped", "red", "capped, not proved"),
    "d00000000007": ("narrower", "amber", "narrower claim proved"),
}


def client() -> TestClient:
    c = TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}", follow_redirects=False
    )
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    return c


@pytest.fixture
def sessions(isolated_home: Path) -> TestClient:
    for sid, (kind, _, _) in KINDS.items():
        write_session(isolated_home, sid, kind)
    return client()


def row_of(page: str, sid: str) -> str:
    return page.split(f'data-session="{sid}"', 1)[1].split("</tr>", 1)[0]


def test_sessions_list_colours_each_kind_and_only_a_proof_is_green(sessions: TestClient) -> None:
    page = sessions.get("/").text
    for sid, (_, colour, word) in KINDS.items():
        row = row_of(page, sid)
        chip = re.search(r'<span class="chip c-(\w+)" data-theorem="(\w+)">([^<]*)</span>', row)
        assert chip, row
        assert (chip.group(1), chip.group(3)) == (colour, word), sid
        assert ("c-green" in row) == (colour == "green"), sid
    assert SCOPE_SENTENCE in row_of(page, "d00000000007")
    # the claim checked is shown as the theorem (its assumption x ≥ 1 included)
    assert "x ≥ 1" in row_of(page, "d00000000001")


@pytest.mark.parametrize("sid", [s for s, (_, colour, _) in KINDS.items() if colour != "green"])
def test_session_page_never_paints_a_weaker_theorem_green(sessions: TestClient, sid: str) -> None:
    _, colour, word = KINDS[sid]
    page = sessions.get(f"/sessions/{sid}").text
    chip = re.search(r'class="chip c-(\w+)" id="theory-status" data-theorem="\w+">([^<]*)<', page)
    assert chip and chip.groups() == (colour, word)
    root = re.search(r'data-lemma="T" data-status="(\w+)" data-colour="(\w+)"', page)
    assert root and root.group(2) == colour  # the theorem's box in the DAG
    assert f"theorem-box c-{colour}" in page


def test_session_page_shows_the_claim_its_words_and_the_narrowing(sessions: TestClient) -> None:
    page = sessions.get("/sessions/d00000000007").text
    assert re.search(r'id="theorem-statement">For all x ∈ ℝ such that x ≥ 1: x\^2 ≥ x<', page)
    assert 'id="theorem-words">In words: For every real number $x$' in page
    assert SCOPE_SENTENCE in page and "the statement itself was not proved" in page
    page = sessions.get("/sessions/d00000000002").text
    assert 'id="theorem-hint"' in page and "--review-llm" in page


def test_status_filter_uses_the_displayed_status(sessions: TestClient) -> None:
    page = sessions.get("/?status=self_reviewed").text
    assert "d00000000002" in page and "d00000000003" in page and "d00000000001" not in page
    page = sessions.get("/?status=proved").text
    assert "d00000000001" in page and "d00000000002" not in page and "d00000000007" not in page
