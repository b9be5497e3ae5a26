"""What the live page is fed and shows: lemma states and model calls written to the session's
events.jsonl by the same path that feeds the terminal, the vendored KaTeX served by the app
(never a CDN), and the lemma list's proofs, counterexample values and box-sized ids."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from ui_helpers import HOST, RESPONDER, TOKEN, make_session, need_ui_extra

need_ui_extra()

from starlette.testclient import TestClient  # noqa: E402

from eurekaclaw.orchestrator.progress import RunUI  # noqa: E402
from eurekaclaw.store.files import atomic_write_json, read_json  # noqa: E402
from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import allowed_hosts, cookie_name  # noqa: E402

STATIC = Path(__file__).resolve().parents[2] / "eurekaclaw" / "ui" / "static"
A = "aaaaaaaaaaaa"


def authed() -> TestClient:
    c = TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}", follow_redirects=False
    )
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    return c


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_model_calls_are_written_with_role_lemma_and_tokens_at_a_modest_rate() -> None:
    """A streaming call reports its tokens ~10 times a second; the session log gets its start,
    at most one token count per second, and its end with the final count."""
    written: list[tuple[str, dict[str, Any]]] = []
    clock = Clock()
    ui = RunUI(live=False, quiet=True, clock=clock)
    ui.record_to(lambda kind, **data: written.append((kind, data)))
    call = ui.call_started("prover", "L1", "theory")
    for i in range(1, 31):  # three seconds of token reports, ten a second
        clock.now += 0.1
        ui.call_tokens(call, i * 7)
    ui.call_finished(call, 250)
    phases = [d["phase"] for k, d in written if k == "llm_call"]
    assert phases[0] == "start" and phases[-1] == "end"
    assert 2 <= phases.count("tokens") <= 3, phases  # not thirty
    start, end = written[0][1], written[-1][1]
    assert start["role"] == "prover" and start["lemma_id"] == "L1" and start["stage"] == "theory"
    assert end["tokens"] == 250 and end["call"] == start["call"]
    assert ui.calls == {}


def test_without_a_session_log_nothing_is_written_and_a_full_disk_never_stops_a_call() -> None:
    ui = RunUI(live=False, quiet=True)
    ui.call_finished(ui.call_started("writer"))  # no sink: nothing to write, no error

    def full(kind: str, **data: Any) -> None:
        raise OSError(28, "No space left on device")

    ui.record_to(full)
    ui.call_finished(ui.call_started("writer"))
    assert ui.calls == {}


@pytest.mark.slow
def test_a_run_writes_every_lemma_state_and_its_calls_to_events_jsonl(tmp_path: Path) -> None:
    """The scripted prove: each lemma goes pending → checking → in progress (attempt 1) →
    reviewing → proved with its level, and each model call has a start and an end event, all
    in events.jsonl (what the browser reads), in the order they happened."""
    import subprocess

    home = tmp_path / "home"
    env = {
        **os.environ,
        "EUREKACLAW_DIR": str(home),
        "HOME": str(tmp_path),
        "LLM_BACKEND": f"scripted:{RESPONDER}",
        "EUREKACLAW_OFFLINE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "prove", "For all real x, x^2 - 2x + 1 >= 0", "--gate", "none"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (run,) = list((home / "runs").iterdir())
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines() if line.strip()]
    states = [(e["state"], e.get("attempt")) for e in events if e["kind"] == "lemma" and e["lemma_id"] == "L1"]
    assert states == [("pending", 0), ("checking", None), ("in_progress", 1), ("reviewing", 1), ("proved", 1)]
    proved = next(e for e in events if e["kind"] == "lemma" and e["lemma_id"] == "L1" and e["state"] == "proved")
    assert proved["level"] == "smt"
    calls = [e for e in events if e["kind"] == "llm_call"]
    starts = {e["call"]: e for e in calls if e["phase"] == "start"}
    ends = {e["call"]: e for e in calls if e["phase"] == "end"}
    assert starts and starts.keys() == ends.keys()
    prover = [e for e in starts.values() if e["role"] == "prover" and e["lemma_id"] == "L1"]
    assert prover and prover[0]["stage"] == "theory"
    assert all(isinstance(e["tokens"], int) and e["tokens"] > 0 for e in ends.values())
    # the prover's call for L1 runs while L1 is in progress, before its review
    order = [(e["kind"], e.get("state") or e.get("phase"), e.get("lemma_id")) for e in events]
    assert order.index(("lemma", "in_progress", "L1")) < order.index(("llm_call", "start", "L1"))
    assert order.index(("llm_call", "start", "L1")) < order.index(("lemma", "reviewing", "L1"))


def test_katex_is_vendored_pinned_and_served_by_the_app(isolated_home: Path) -> None:
    """KaTeX comes from the app's own static route with its licence; no page names a CDN."""
    katex = STATIC / "katex"
    assert "KaTeX 0.16.11" in (katex / "VERSION").read_text()
    assert "MIT License" in (katex / "LICENSE").read_text()
    assert 'version:"0.16.11"' in (katex / "katex.min.js").read_text(encoding="utf-8")
    css = (katex / "katex.min.css").read_text(encoding="utf-8")
    for font in set(part.split(")")[0] for part in css.split("url(")[1:] if ".woff2" in part.split(")")[0]):
        assert (katex / font).is_file(), font  # every woff2 font the stylesheet asks for is here
    make_session(isolated_home, A)
    c = authed()
    page = c.get(f"/sessions/{A}").text
    for asset in (
        "/static/katex/katex.min.css",
        "/static/katex/katex.min.js",
        "/static/katex/contrib/auto-render.min.js",
    ):
        assert asset in page
        assert c.get(asset).status_code == 200, asset
    assert c.get("/static/katex/fonts/KaTeX_Main-Regular.woff2").status_code == 200
    assert "cdn" not in page.lower() and "https://" not in page


def test_lemma_list_shows_proofs_counterexample_values_and_ids_cut_to_their_box(isolated_home: Path) -> None:
    session = make_session(isolated_home, A)
    theory = read_json(session.file("theory_state.json"), None)
    long_id = "Lemma_bounded_partial_sums_of_inverse_squares"
    theory["lemma_dag"][long_id] = {"id": long_id, "statement": r"$\sum_{k \le n} 1/k^2 \le 2$", "dependencies": []}
    theory["counterexamples"][0]["assignment"] = {"x": "1/2", "y": 3}
    theory["proven_lemmas"]["L1"]["proof"] = r"Since $(x-1)^2$ is a square, Lemma~\ref{lem:L0} applies."
    atomic_write_json(session.file("theory_state.json"), theory)
    page = authed().get(f"/sessions/{A}").text
    assert "x = 1/2" in page and "y = 3" in page
    assert "{&#39;x&#39;" not in page and "{'x'" not in page  # never a Python dict
    assert 'class="proof-text math">Since $(x-1)^2$ is a square' in page
    # the DAG box shows the id cut to fit, the full id is its title and heads its lemma card
    assert f'class="nid">{long_id[:17]}…</text>' in page
    assert f"<title>{long_id}: " in page
    assert f'<strong class="lid">{long_id}</strong>' in page
