"""The app in a real browser: headless system Chromium driven by Playwright. Opens the sessions
page, starts a scripted prove behind a human gate, answers the gates, watches the DAG reach
proved live, opens the paper and the evaluation. Screenshots go to tmp (or to
$EUREKACLAW_UI_SCREENSHOTS when set, which is how docs/img/ui-*.png are made)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
from pathlib import Path

import pytest
from toolreq import tools_required
from ui_helpers import (
    RESPONDER,
    STATEMENT,
    add_mab_experiment,
    make_session,
    need_ui_extra,
    wait_for,
)

need_ui_extra()

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright.sync_api  # noqa: F401
    except ModuleNotFoundError:
        path, why = None, "python module playwright is not installed"
    else:
        why = "chromium is not on PATH (Debian package chromium)"
    if path:
        return path
    if tools_required():
        pytest.fail(f"required tool missing: {why}")
    pytest.skip(why)


@pytest.fixture
def server(isolated_home: Path, monkeypatch: pytest.MonkeyPatch):
    import uvicorn

    from eurekaclaw.ui.app import create_app
    from eurekaclaw.ui.security import allowed_hosts, new_token
    from eurekaclaw.ui.server import url_for

    monkeypatch.setenv("LLM_BACKEND", f"scripted:{RESPONDER}")
    monkeypatch.setenv("EUREKACLAW_OFFLINE", "1")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    token = new_token()
    config = uvicorn.Config(
        create_app(token, allowed_hosts("127.0.0.1", port)), log_level="warning", timeout_graceful_shutdown=1
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_for(lambda: srv.started, timeout=30, what="the server to start")
    yield url_for("127.0.0.1", port, token), f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)
    sock.close()


@contextlib.contextmanager
def chromium_page():
    """A page of headless system Chromium (1280x900), closed afterwards."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=executable, headless=True, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        try:
            yield browser, browser.new_page(viewport={"width": 1280, "height": 900})
        finally:
            browser.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    target = Path(os.environ.get("EUREKACLAW_UI_SCREENSHOTS") or tmp_path / "screenshots")
    target.mkdir(parents=True, exist_ok=True)
    return target


def test_launch_watch_gate_paper_in_chromium(server, shots: Path) -> None:
    url, base = server
    with chromium_page() as (browser, page):
        from playwright.sync_api import expect

        page.goto(url)
        assert "token=" not in page.url  # the token was swapped for a cookie
        expect(page.locator("h1")).to_have_text("Sessions")
        expect(page.locator(".empty")).to_contain_text("No sessions yet")

        page.click("text=New run")
        page.fill("#statement", STATEMENT)
        page.select_option("#gate-mode", "human")
        page.click("#start")
        page.wait_for_load_state()
        assert "/sessions/" in page.url, page.locator("main").inner_text()
        sid = page.url.rsplit("/", 1)[1]

        # gates arrive live (server-sent events refresh the page); answer each in the page
        approvals, last = 0, ""
        status = page.locator("#status")
        while True:
            page.wait_for_function(
                "(last) => { const g = document.getElementById('gate');"
                " const s = document.getElementById('summary');"
                " return (g && g.dataset.asked !== last) || (s && s.dataset.running === 'no'); }",
                arg=last,
                timeout=240_000,
            )
            gate = page.locator("#gate")
            if gate.count() == 0:
                break
            last = gate.get_attribute("data-asked") or ""
            if approvals == 1:
                page.fill("#gate textarea", "looks right, go on")
                page.screenshot(path=str(shots / "ui-gate.png"), full_page=True)
            with page.expect_navigation():
                page.click("#gate-approve")
            assert page.url == f"{base}/sessions/{sid}", page.locator("main").inner_text()
            approvals += 1
        assert approvals >= 1
        expect(status).to_have_text("completed")
        expect(page.locator("#theory-status")).to_have_text("proved")
        expect(page.locator('#dag g[data-lemma="T"]')).to_have_attribute("data-status", "proved")
        expect(page.locator("#events li").first).to_be_visible()
        page.screenshot(path=str(shots / "ui-session.png"), full_page=True)

        page.click("text=Sessions")
        expect(page.locator(f'tr[data-session="{sid}"]')).to_contain_text("proved")
        page.screenshot(path=str(shots / "ui-sessions.png"))

        page.goto(f"{base}/sessions/{sid}/paper")
        md = page.locator("#paper-md")
        expect(md).to_contain_text("Theorem")
        pdf = page.request.get(f"{base}/sessions/{sid}/files/paper.pdf")
        if shutil.which("latexmk"):
            assert pdf.ok and pdf.body().startswith(b"%PDF")
        page.screenshot(path=str(shots / "ui-paper.png"))

        page.goto(f"{base}/sessions/{sid}/eval")
        expect(page.locator("#eval-chart")).to_be_visible()
        page.screenshot(path=str(shots / "ui-eval.png"), full_page=True)

        # another browser profile without the token gets nothing
        other = browser.new_page()
        response = other.goto(f"{base}/sessions/{sid}")
        assert response is not None and response.status == 401
    for name in ("ui-session.png", "ui-sessions.png", "ui-paper.png", "ui-eval.png"):
        assert (shots / name).stat().st_size > 10_000, name


def test_experiment_charts_in_chromium(server, shots: Path, isolated_home: Path) -> None:
    """A finished bandit session's experiment section: the regret chart and the best-arm-rate
    chart render in the browser with their axes, legends and captions."""
    sid = "cccccccccccc"
    add_mab_experiment(make_session(isolated_home, sid, statement="UCB1 and KL-UCB regret on level1"))
    url, base = server
    with chromium_page() as (_browser, page):
        from playwright.sync_api import expect

        page.goto(url)
        page.goto(f"{base}/sessions/{sid}")
        # the event log replays once and the live part is fetched again: wait for that to end
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1000)
        rate = page.locator('svg[data-metric="best_arm_rate"]')
        expect(page.locator('svg[data-metric="regret"]')).to_be_visible()
        expect(rate).to_be_visible()
        expect(rate.locator("text", has_text="fraction of optimal pulls")).to_have_count(1)
        box = rate.bounding_box()
        assert box is not None and box["width"] > 600 and box["height"] > 250
        page.locator("#experiment").screenshot(path=str(shots / "ui-experiment.png"))
    assert (shots / "ui-experiment.png").stat().st_size > 10_000


def test_only_a_proof_is_painted_green_in_chromium(server, shots: Path, isolated_home: Path) -> None:
    """A self-reviewed, a contradicted and a proved session side by side: the computed colour of
    each theorem chip (list and session page) and of the theorem's DAG box in a real browser."""
    from surface_kit import write_session

    green = "rgb(223, 243, 231)"  # --okbg
    kinds = {"e00000000001": "proved", "e00000000002": "self_reviewed", "e00000000003": "contradicted"}
    for sid, kind in kinds.items():
        write_session(isolated_home, sid, kind)
    url, base = server
    with chromium_page() as (_browser, page):
        page.goto(url)
        for sid, kind in kinds.items():
            chip = page.locator(f'tr[data-session="{sid}"] td.theorem .chip')
            background = chip.evaluate("el => getComputedStyle(el).backgroundColor")
            assert (background == green) == (kind == "proved"), (kind, background)
            assert (chip.inner_text() == "proved") == (kind == "proved")
        page.screenshot(path=str(shots / "ui-sessions-kinds.png"))
        for sid, kind in kinds.items():
            page.goto(f"{base}/sessions/{sid}")
            page.wait_for_load_state("networkidle")
            chip = page.locator("#theory-status")
            assert (chip.evaluate("el => getComputedStyle(el).backgroundColor") == green) == (kind == "proved")
            box = page.locator('#dag g[data-lemma="T"] rect')
            assert (box.evaluate("el => getComputedStyle(el).fill") == green) == (kind == "proved"), kind


# Records, every 50 ms, each DAG box's shown state (the live overlay's state when it has one,
# else the files' status), whether an attempt number was shown, the clock and the calls seen.
WATCH_SCRIPT = """
window.__seen = {}; window.__attempt = {}; window.__clocks = []; window.__calls = [];
setInterval(() => {
  document.querySelectorAll('#dag g[data-lemma]').forEach((g) => {
    const id = g.dataset.lemma, st = g.dataset.live || g.dataset.status;
    const seen = (window.__seen[id] = window.__seen[id] || []);
    if (seen[seen.length - 1] !== st) seen.push(st);
    const text = (g.querySelector('.nst') || {}).textContent || '';
    if (g.dataset.live && /attempt \\d/.test(text)) window.__attempt[id] = text;
  });
  const clock = document.getElementById('clock');
  if (clock && clock.dataset.state === 'running' && window.__clocks.indexOf(clock.textContent) < 0)
    window.__clocks.push(clock.textContent);
  document.querySelectorAll('#calls li').forEach((li) => {
    if (window.__calls.indexOf(li.textContent.replace(/ · \\d+s.*$/, '')) < 0)
      window.__calls.push(li.textContent.replace(/ · \\d+s.*$/, ''));
  });
}, 50);
"""


def test_live_page_shows_lemmas_in_progress_the_clock_and_katex(
    server, shots: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A running session watched in Chromium: lemma L1's box goes in progress (with its attempt
    number, from the lemma events of events.jsonl) and then proved, the elapsed clock moves while
    the run lasts, the running model call is listed by role, and KaTeX typesets the statements."""
    monkeypatch.setenv("DEMO_DELAY_S", "0.6")  # each model call lasts long enough to be seen
    url, base = server
    with chromium_page() as (_browser, page):
        from playwright.sync_api import expect

        page.add_init_script(WATCH_SCRIPT)
        page.goto(url)
        page.click("text=New run")
        page.fill("#statement", STATEMENT)
        page.select_option("#gate-mode", "none")
        page.click("#start")
        page.wait_for_load_state()
        assert "/sessions/" in page.url, page.locator("main").inner_text()

        # T is worked on after L1 is proved: the moment both colours are on screen
        page.wait_for_function(
            "() => { const t = document.querySelector('#dag g[data-lemma=\"T\"]');"
            " return t && t.dataset.live && document.querySelector('#dag g[data-lemma=\"L1\"]')"
            ".dataset.status === 'proved'; }",
            timeout=240_000,
        )
        page.screenshot(path=str(shots / "ui-live.png"), full_page=True)
        page.wait_for_function("() => document.getElementById('summary').dataset.running === 'no'", timeout=240_000)
        expect(page.locator("#status")).to_have_text("completed")
        seen = page.evaluate("window.__seen")
        l1 = seen["L1"]
        assert "in_progress" in l1 and "proved" in l1, seen
        assert l1.index("in_progress") < l1.index("proved"), seen
        assert l1[-1] == "proved", seen
        assert "attempt 1" in page.evaluate("window.__attempt")["L1"]
        clocks = page.evaluate("window.__clocks")
        assert len(clocks) >= 2, clocks  # the clock moved while the session ran
        assert any("model call: prover · lemma L1" in c for c in page.evaluate("window.__calls"))
        # the finished page: a frozen clock, no call in flight, typeset statements and proofs
        expect(page.locator("#clock")).to_have_attribute("data-state", "stopped")
        expect(page.locator("#calls li")).to_have_count(0)
        page.wait_for_function("() => document.querySelectorAll('#lemma-L1 .katex').length > 0")
        assert page.locator("#lemma-L1 .rendered .katex").count() >= 1
        expect(page.locator("#lemma-L1 .proof-text")).to_be_visible()
        page.screenshot(path=str(shots / "ui-live-done.png"), full_page=True)
        # the paper's Markdown version is typeset too (its title is "For all real $x$, ...")
        page.goto(page.url + "/paper")
        page.wait_for_function("() => document.querySelectorAll('#paper-md h1 .katex').length > 0")
        assert "$" not in page.locator("#paper-md h1").inner_text()
        page.locator("#paper-md").screenshot(path=str(shots / "ui-paper-katex.png"))
    for name in ("ui-live.png", "ui-live-done.png", "ui-paper-katex.png"):
        assert (shots / name).stat().st_size > 10_000, name
