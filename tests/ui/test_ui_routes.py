"""The pages and the event stream, read from session directories as the CLI leaves them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ui_helpers import HOST, TOKEN, add_mab_experiment, make_session, need_ui_extra

need_ui_extra()

from starlette.testclient import TestClient  # noqa: E402

from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import allowed_hosts, cookie_name  # noqa: E402

A, B = "aaaaaaaaaaaa", "bbbbbbbbbbbb"


def authed() -> TestClient:
    c = TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}", follow_redirects=False
    )
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    return c


def test_sessions_list_shows_status_level_cost_and_filters(isolated_home: Path) -> None:
    make_session(isolated_home, A)
    make_session(
        isolated_home, B, statement="UCB1 regret bound", status="partial", theory_status="refuted", cost_known=False
    )
    c = authed()
    page = c.get("/").text
    assert A in page and B in page and "UCB1 regret bound" in page
    assert "st-partial" in page and 'class="chip c-red" data-theorem="refuted"' in page
    # A's theorem rests on a self-review: amber, never a green "proved"
    assert 'class="chip c-amber" data-theorem="self_reviewed">self-reviewed<' in page
    assert "c-green" not in page
    assert "lv-reviewed" in page  # the weakest level over the proven lemmas (smt, reviewed)
    assert "$0.0125" in page
    assert "unknown (≥ $0.0125 priced)" in page  # an unpriced call is never shown as a plain dollar figure
    only_b = c.get("/?q=ucb1").text
    assert B in only_b and A not in only_b
    only_a = c.get("/?status=completed").text
    assert A in only_a and B not in only_a
    assert "No session matches" in c.get("/?q=nothing-like-this").text


def test_a_session_left_running_by_a_dead_process_is_shown_interrupted(isolated_home: Path) -> None:
    session = make_session(isolated_home, A, status="running", theory_status=None)
    session.file("run.pid").write_text(json.dumps({"pid": 2**22 + 12345}))
    c = authed()
    assert "st-interrupted" in c.get("/").text
    page = c.get(f"/sessions/{A}").text
    assert 'id="resume"' in page and 'id="pause"' not in page


def test_session_page_draws_stages_dag_levels_and_checks(isolated_home: Path) -> None:
    make_session(isolated_home, A)
    page = authed().get(f"/sessions/{A}").text
    for stage in ("survey", "formalize", "theory", "experiment", "write", "evaluate", "learn"):
        assert f'data-stage="{stage}" data-status="completed"' in page
    assert "4.0 s" in page  # stage timings
    # the theorem's box shows the theorem's status: its weakest support is a self-review
    assert 'data-lemma="T" data-status="self_reviewed" data-colour="amber"' in page
    assert 'data-lemma="L1" data-status="proved" data-colour="green"' in page
    assert 'data-lemma="L2" data-status="refuted" data-colour="red"' in page
    assert page.count('class="edge"') == 1  # T uses L1
    assert 'id="theory-status" data-theorem="self_reviewed">self-reviewed<' in page
    assert "--review-llm" in page  # how to get proved
    assert "reviewed · self-review" in page  # who reviewed is shown
    assert "z3: passed" in page
    assert "counterexample (falsifier)" in page and "fails at x = -3" in page
    assert "1,234" in page  # tokens
    assert f"/sessions/{A}/files/paper.pdf" in page


def test_unknown_session_is_a_404_page(isolated_home: Path) -> None:
    r = authed().get("/sessions/cccccccccccc")
    assert r.status_code == 404 and "no such session" in r.text


def test_events_stream_replays_the_log_with_ids_and_resumes_after_last_event_id(isolated_home: Path) -> None:
    session = make_session(isolated_home, A)
    with session.file("events.jsonl").open("a") as fh:
        fh.write("{not json\n")  # a damaged line is skipped, not fatal
    c = authed()
    r = c.get(f"/sessions/{A}/events")
    assert r.headers["content-type"].startswith("text/event-stream")
    datas = [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]
    ids = [int(line[4:]) for line in r.text.splitlines() if line.startswith("id: ")]
    assert [d["kind"] for d in datas] == ["session_started", "stage", "session_stopped"]
    assert ids == [1, 2, 3]
    later = c.get(f"/sessions/{A}/events", headers={"last-event-id": "2"}).text
    assert [json.loads(line[6:])["kind"] for line in later.splitlines() if line.startswith("data: ")] == [
        "session_stopped"
    ]


def test_paper_page_renders_markdown_safely_and_serves_the_pdf_inline(isolated_home: Path) -> None:
    make_session(isolated_home, A, paper_md="# Title\n\n<script>alert(1)</script>\n\n*emph*\n")
    c = authed()
    page = c.get(f"/sessions/{A}/paper").text
    assert "<h1>Title</h1>" in page and "<em>emph</em>" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert f'src="/sessions/{A}/files/paper.pdf"' in page
    pdf = c.get(f"/sessions/{A}/files/paper.pdf")
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.headers["content-disposition"].startswith("inline")
    assert pdf.content.startswith(b"%PDF")


def test_eval_page_charts_the_dimensions(isolated_home: Path) -> None:
    make_session(isolated_home, A)
    page = authed().get(f"/sessions/{A}/eval").text
    assert 'id="eval-chart"' in page and "0.710" in page
    assert 'width="360.0"' in page  # 0.9 of the 400-pixel track
    assert 'id="eval-version"' not in page  # a report that names no version claims none


def test_eval_page_names_the_paper_version_it_scores(isolated_home: Path) -> None:
    import json

    from eurekaclaw.store.session import Workspace

    make_session(isolated_home, A)
    report = Workspace(isolated_home).runs_dir / A / "eval_report.json"
    data = json.loads(report.read_text())
    report.write_text(json.dumps({**data, "paper_version": 2}))
    page = authed().get(f"/sessions/{A}/eval").text
    assert '<p id="eval-version">Scores paper version 2.</p>' in page
    assert "not applicable" in page  # a dimension without a score is not drawn as zero


def test_launch_rejects_bad_input_in_one_line_and_creates_nothing(isolated_home: Path) -> None:
    from eurekaclaw.ui.security import csrf_token

    c = authed()
    form = c.get("/launch").text
    assert 'name="statement"' in form and "prove" in form
    cases = [
        ({"mode": "prove", "statement": "   "}, "the statement is empty"),
        ({"mode": "from-papers", "paper_ids": ""}, "at least one"),
        ({"mode": "explode", "statement": "x"}, "choose prove"),
        ({"mode": "prove", "statement": "x >= 0", "budget_usd": "lots"}, "not a number"),
        ({"mode": "prove", "statement": "x >= 0", "gate": "sometimes"}, "gate must be"),
        ({"mode": "prove", "statement": "x >= 0", "domain": "../../etc"}, "unknown domain"),
        # the CLI's checks: a vague statement or a wordless area starts nothing
        ({"mode": "prove", "statement": "bandits"}, "too short or vague to be a conjecture"),
        ({"mode": "explore", "statement": "??"}, "too short to be a research area"),
    ]
    for data, message in cases:
        r = c.post("/launch", data={**data, "csrf": csrf_token(TOKEN)})
        assert r.status_code == 400, data
        assert message in r.text, (data, r.text[:300])
    assert not (isolated_home / "runs").exists() or not any((isolated_home / "runs").iterdir())


def test_launch_with_an_unusable_backend_fails_before_any_session(isolated_home: Path, monkeypatch) -> None:
    from eurekaclaw.ui.security import csrf_token

    monkeypatch.setenv("LLM_BACKEND", "anthropic")  # configured, but without its key

    r = authed().post("/launch", data={"mode": "prove", "statement": "x^2 >= 0", "csrf": csrf_token(TOKEN)})
    assert r.status_code == 409
    assert "ANTHROPIC_API_KEY" in r.text
    assert not (isolated_home / "runs").exists() or not any((isolated_home / "runs").iterdir())


def test_ui_command_refuses_a_public_address_without_the_flag(isolated_home: Path) -> None:
    from typer.testing import CliRunner

    from eurekaclaw.cli import app

    result = CliRunner().invoke(app, ["ui", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "--allow-remote" in result.output and "Traceback" not in result.output


def test_events_follow_a_session_another_process_is_running(isolated_home: Path) -> None:
    """While the session's run.pid names a live process the stream keeps following the log
    (a session started from the CLI shows live); it ends once the process is gone."""
    import os
    import threading

    session = make_session(isolated_home, A, status="running", theory_status=None)
    session.file("run.pid").write_text(json.dumps({"pid": os.getpid()}))
    c = authed()
    seen: list[str] = []

    def writer() -> None:
        from ui_helpers import wait_for

        wait_for(lambda: len(seen) >= 3, timeout=60, what="the replayed events")
        session.event("lemma", lemma_id="L1", state="proved", level="smt")
        wait_for(lambda: len(seen) >= 4, timeout=60, what="the live event")
        session.file("run.pid").unlink()

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    with c.stream("GET", f"/sessions/{A}/events") as r:
        for line in r.iter_lines():
            if line.startswith("data: "):
                seen.append(json.loads(line[6:])["kind"])
    thread.join(10)
    assert seen == ["session_started", "stage", "session_stopped", "lemma"]


def test_skills_page_installs_the_built_in_skills_and_lists_them(isolated_home: Path) -> None:
    from eurekaclaw.ui.security import csrf_token

    c = authed()
    assert c.post("/skills/install", data={}).status_code == 403  # CSRF as everywhere
    r = c.post("/skills/install", data={"csrf": csrf_token(TOKEN)})
    assert r.status_code == 200, r.text[:300]
    assert "built-in seed skills" in r.text and "installed" in r.text
    installed = sorted(p.name for p in (isolated_home / "skills").iterdir() if (p / "SKILL.md").is_file())
    assert installed
    page = c.get("/skills").text
    assert all(name in page for name in installed)
    # the browser app reads nothing outside EUREKACLAW_DIR: no local folders, archives or file:// remotes
    outside = isolated_home.parent / "my-skills"
    (outside / "secret-skill").mkdir(parents=True)
    (outside / "secret-skill" / "SKILL.md").write_text("---\nname: secret-skill\ndescription: x\n---\nbody\n")
    for source in (str(outside), f"file://{outside}", "/etc", "git@example.org:x/y.git"):
        r = c.post("/skills/install", data={"csrf": csrf_token(TOKEN), "source": source})
        assert r.status_code == 400 and "eurekaclaw install-skills" in r.text, source
    assert not (isolated_home / "skills" / "secret-skill").exists()


def test_a_damaged_file_is_shown_as_damaged_and_left_in_place(isolated_home: Path) -> None:
    session = make_session(isolated_home, A)
    session.file("theory_state.json").write_text('{"lemma_dag": [1, 2')  # torn
    session.file("eval_report.json").write_text('{"dimensions": "none"}')  # wrong shape
    c = authed()
    page = c.get(f"/sessions/{A}").text
    assert 'id="damaged"' in page and "theory_state.json" in page and "eval_report.json" in page
    assert 'id="theory-status"' not in page and 'id="dag"' not in page  # no theorem is made up
    assert "unreadable" in c.get("/").text  # the list does not show a level it cannot read
    assert 'id="no-eval"' in c.get(f"/sessions/{A}/eval").text
    # the viewer never moves a session's files aside: that is the run's (or resume's) decision
    assert session.file("theory_state.json").read_text() == '{"lemma_dag": [1, 2'
    assert not list(session.path.glob("*.corrupt-*"))


def test_a_level_cap_makes_the_weakest_level_unverified(isolated_home: Path) -> None:
    session = make_session(isolated_home, A)
    theory = json.loads(session.file("theory_state.json").read_text())
    theory["level_cap_reasons"] = ["a lemma was replaced by one without a claim"]
    session.file("theory_state.json").write_text(json.dumps(theory))
    assert "lv-unverified" in authed().get("/").text


def test_experiment_curves_and_bound_checks_are_drawn(isolated_home: Path) -> None:
    import shutil

    from eurekaclaw.store.files import atomic_write_json

    session = make_session(isolated_home, A)
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "writer"
    shutil.copy(fixtures / "regret.csv", session.path / "regret_curves.csv")
    atomic_write_json(
        session.file("experiment_result.json"),
        {
            "status": "completed",
            "plot_csv": "regret_curves.csv",
            "bound_checks": [
                {
                    "name": "ucb1_gap_free",
                    "horizon": 1000,
                    "empirical_mean": 30.0,
                    "std_error": 1.0,
                    "theoretical": 25.0,
                    "held": False,
                }
            ],
            "violations": ["ucb1_gap_free violated at T=1000"],
        },
    )
    page = authed().get(f"/sessions/{A}").text
    assert 'data-figure="regret_curves.csv"' in page
    assert page.count("<polyline") == 3  # UCB1, epsilon_greedy and the bound
    assert 'stroke-dasharray="6 4"' in page  # the bound is dashed
    assert ">violated<" in page and "ucb1_gap_free violated at T=1000" in page


def _charts(page: str) -> dict[str, str]:
    """Each experiment chart's SVG by its measure (data-metric)."""
    out = {}
    for part in page.split("<svg ")[1:]:
        metric = re.search(r'data-metric="([^"]+)"', part.split(">", 1)[0])
        if metric:
            out[metric.group(1)] = part.split("</svg>", 1)[0]
    return out


def test_the_best_arm_rate_gets_its_own_chart_beside_the_regret_chart(isolated_home: Path) -> None:
    add_mab_experiment(make_session(isolated_home, A))
    page = authed().get(f"/sessions/{A}").text
    charts = _charts(page)
    assert list(charts) == ["regret", "best_arm_rate"]
    regret, rate = charts["regret"], charts["best_arm_rate"]
    assert regret.count("<polyline") == 5 and regret.count('stroke-dasharray="6 4"') == 4  # 2 bounds + legend
    assert rate.count("<polyline") == 3 and "stroke-dasharray" not in rate  # the policies only, no bound
    assert rate.count("<polygon") == 3  # each with its ±1 s.e. band
    assert ">fraction of optimal pulls<" in rate and ">mean regret<" in regret
    assert [t for t in re.findall(r'class="tick">([^<]+)<', rate)][:5] == ["0", "0.25", "0.5", "0.75", "1"]

    # a policy keeps its colour in both charts
    def colours(svg: str) -> dict[str, str]:
        pairs = re.findall(r'stroke="(#[0-9a-f]{6})" stroke-width="2"/>\s*<text[^>]*>([^<]+)<', svg)
        return {name: colour for colour, name in pairs}

    assert len(set(colours(rate).values())) == 3
    assert {k: v for k, v in colours(regret).items() if k in ("ucb1", "ts_beta", "kl_ucb")} == colours(rate)
    # a bound is dashed in the colour of the policy it was derived for
    dashed = dict(
        (name, colour)
        for colour, name in re.findall(
            r'stroke="(#[0-9a-f]{6})" stroke-width="2" stroke-dasharray="6 4"/>\s*<text[^>]*>([^<]+)<', regret
        )
    )
    assert dashed == {
        "klucb_asymptotic (bound)": colours(rate)["kl_ucb"],
        "ucb1_auer2002 (bound)": colours(rate)["ucb1"],
    }
    assert "best-arm rate: fraction of the pulls up to time t that chose an optimal arm" in page
    # every point of a rate line lies inside the plot (the axis is 0 to 1)
    ys = [float(p.split(",")[1]) for line in re.findall(r'<polyline points="([^"]+)"', rate) for p in line.split()]
    assert all(16 <= y <= 16 + 360 - 16 - 40 for y in ys)


def test_a_bug_is_one_readable_line_not_a_traceback(isolated_home: Path, monkeypatch) -> None:
    from eurekaclaw.ui import data

    def broken(*args, **kwargs):
        raise RuntimeError("boom sk-ant-api03-SECRETSECRETSECRET")

    monkeypatch.setattr(data, "session_rows", broken)
    c = TestClient(
        create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}", raise_server_exceptions=False
    )
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    r = c.get("/")
    assert r.status_code == 500
    assert "internal error: RuntimeError: boom" in r.text and "Traceback" not in r.text
    assert "SECRETSECRET" not in r.text
