"""The paper's Q&A and revision page runs `eurekaclaw review`'s entry point with the configured
backend: a careless answer is shown corrected from the records, a revision adds a version."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ui_helpers import HOST, TOKEN, make_session, need_ui_extra

need_ui_extra()

REVIEW_TESTS = Path(__file__).resolve().parents[1] / "integration" / "review"
sys.path.insert(0, str(REVIEW_TESTS))

from reviewkit import finished_session  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import allowed_hosts, cookie_name, csrf_token  # noqa: E402


def authed() -> TestClient:
    c = TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}", follow_redirects=False
    )
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    return c


def test_ask_and_revise_from_the_page(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = finished_session(isolated_home)
    monkeypatch.setenv("LLM_BACKEND", f"scripted:{REVIEW_TESTS / 'review_responder.py'}")
    c = authed()
    sid = session.session_id
    page = c.get(f"/sessions/{sid}/review").text
    assert 'id="ask-form"' in page and "No questions yet" in page

    r = c.post(f"/sessions/{sid}/review", data={"question": "Is L2 machine-checked?", "csrf": csrf_token(TOKEN)})
    assert r.status_code == 303, r.text[:400]
    page = c.get(f"/sessions/{sid}/review").text
    assert "Is L2 machine-checked?" in page
    answer = page.split('class="answer">', 1)[1].split("</p>", 1)[0]
    assert "Coq" not in answer  # the overclaim is not shown as the answer
    assert "Lemma L2 is recorded at level reviewed (a sentence of the model was not shown" in page  # the record is

    r = c.post(
        f"/sessions/{sid}/review", data={"feedback": "Say plainly how L2 was checked.", "csrf": csrf_token(TOKEN)}
    )
    assert r.status_code == 303, r.text[:400]
    page = c.get(f"/sessions/{sid}/review").text
    assert "paper version 2" in page and "Say plainly how L2 was checked." in page
    assert "re-ran: write" in page  # what the revision re-ran (prose only: the writer)
    assert f"/sessions/{sid}/files/paper_v2.tex" in page
    assert c.get(f"/sessions/{sid}/files/paper_v2.tex").status_code == 200


def test_review_needs_one_thing_and_a_paper(isolated_home: Path) -> None:
    c = authed()
    make_session(isolated_home, "dddddddddddd", paper_md=None)
    page = c.get("/sessions/dddddddddddd/review").text
    assert 'id="no-review"' in page and 'id="ask-form"' not in page
    r = c.post("/sessions/dddddddddddd/review", data={"question": "q", "feedback": "f", "csrf": csrf_token(TOKEN)})
    assert r.status_code == 400 and "either a question or revision feedback" in r.text
    r = c.post("/sessions/dddddddddddd/review", data={"question": "why?", "csrf": csrf_token(TOKEN)})
    assert r.status_code == 400  # no finished paper: one readable line, no traceback
    assert "Traceback" not in r.text
