"""Attacks on the live session page in a real Chromium: an event log that claims more than the
session's files (a lemma "proved" by an event alone, a refuted lemma "reviewing"), and model text
in a proof that tries to run script through the HTML or through KaTeX."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))

from test_ui_browser import chromium_page, server  # noqa: E402,F401  (server is a fixture)
from ui_helpers import make_session  # noqa: E402

from eurekaclaw.store.files import atomic_write_json, read_json  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.e2e]
SID = "dddddddddddd"


def running_session(home: Path) -> None:
    """A session the page believes is running (its pid is this test's process) with a pending
    lemma L3, a refuted L2 and a proof whose text is hostile."""
    session = make_session(home, SID, status="running", theory_status="in_progress")
    theory = read_json(session.file("theory_state.json"), None)
    theory["lemma_dag"]["L3"] = {"id": "L3", "statement": "$x \\le x$", "status": "pending", "dependencies": []}
    theory["proven_lemmas"]["L1"]["proof"] = (
        '<img src=x onerror="window.__pwned = 1"> then \\href{javascript:window.__pwned=2}{click} and $x^2 \\ge 0$.'
    )
    atomic_write_json(session.file("theory_state.json"), theory)
    session.file("run.pid").write_text(json.dumps({"pid": os.getpid()}))
    for lemma_id, state, attempt in (("L3", "in_progress", 2), ("L2", "reviewing", 3), ("L3", "proved", 2)):
        session.event("lemma", lemma_id=lemma_id, state=state, attempt=attempt, level="formal")
    # the last word on L3 is a lie ("proved", "formal") that no file backs: it must not show
    session.event("lemma", lemma_id="L3", state="reviewing", attempt=2, level=None)


def test_events_never_paint_a_lemma_beyond_its_files_and_proof_text_cannot_run_script(
    server,  # noqa: F811
    isolated_home: Path,
) -> None:
    """Attack: events.jsonl says a refuted lemma is being reviewed and a pending one "proved"
    (formal); a proof carries an <img onerror> and a KaTeX \\href to javascript:. The page shows
    only active states over open lemmas (L3 reviewing, never green), keeps L2 refuted, and no
    script runs."""
    running_session(isolated_home)
    url, base = server
    with chromium_page() as (_browser, page):
        page.goto(url)
        page.goto(f"{base}/sessions/{SID}")
        page.wait_for_function(
            "() => { const g = document.querySelector('#dag g[data-lemma=\"L3\"]'); return g && g.dataset.live; }",
            timeout=60_000,
        )
        l3 = page.locator('#dag g[data-lemma="L3"]')
        assert l3.get_attribute("data-live") == "reviewing"
        assert l3.get_attribute("data-status") == "pending"  # the files' word, kept
        assert "reviewing · attempt 2" in (l3.locator(".nst").text_content() or "")
        fill = l3.locator("rect").evaluate("el => getComputedStyle(el).fill")
        assert fill != "rgb(223, 243, 231)"  # never the green of a proof
        l2 = page.locator('#dag g[data-lemma="L2"]')
        assert l2.get_attribute("data-status") == "refuted" and l2.get_attribute("data-live") is None
        assert page.locator("#lemma-L2 .lemma-state").inner_text() != "reviewing · attempt 3"
        page.wait_for_function("() => document.querySelectorAll('#lemma-L1 .proof-text .katex').length > 0")
        assert page.evaluate("window.__pwned") is None
        assert page.locator("#lemma-L1 .proof-text img").count() == 0
        assert page.locator('a[href^="javascript"]').count() == 0
        assert "<img src=x" in page.locator("#lemma-L1 .proof-text").inner_text()  # shown as text
