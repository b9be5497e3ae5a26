"""The bench pages: a bench folder made by the real bench code (the honest and the careless
scripted demonstration models on one true and one false statement) read back with its rates,
Wilson intervals and paired comparison as the bench's report computes them; a partial and a
damaged folder shown as such, never a 500; the routes behind the guard."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from ui_helpers import HOST, TOKEN, need_ui_extra

need_ui_extra()

from starlette.testclient import TestClient  # noqa: E402
from test_ui_browser import chromium_page, server, shots  # noqa: E402, F401  (the browser test's fixtures)

from eurekaclaw.bench import runner  # noqa: E402
from eurekaclaw.bench.configs import DEMO_DIR  # noqa: E402
from eurekaclaw.bench.models import BenchConfig  # noqa: E402
from eurekaclaw.bench.problems import load_problem_set, select  # noqa: E402
from eurekaclaw.ui.app import create_app  # noqa: E402
from eurekaclaw.ui.security import allowed_hosts, cookie_name  # noqa: E402

NAME = "20261128-031500-abcdef"


@pytest.fixture(scope="module")
def made_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real bench: honest and careless on a true and a false statement."""
    mp = pytest.MonkeyPatch()
    mp.setenv("EUREKACLAW_OFFLINE", "1")
    mp.setenv("EUREKACLAW_DIR", str(tmp_path_factory.mktemp("bench_home")))
    try:
        problems = select([load_problem_set("demo")], only=["demo-square", "demo-cube-square"])
        options = runner.BenchOptions(
            problem_sets=["demo"],
            problems=problems,
            configs=[
                BenchConfig(label="honest", llm=f"scripted:{DEMO_DIR / 'honest.py'}"),
                BenchConfig(label="careless", llm=f"scripted:{DEMO_DIR / 'careless.py'}"),
            ],
        )
        bench_dir = tmp_path_factory.mktemp("made") / NAME
        runner.run_bench(options, bench_dir)
    finally:
        mp.undo()
    return bench_dir


def _client() -> TestClient:
    c = TestClient(create_app(TOKEN, allowed_hosts("127.0.0.1", 8765)), base_url=f"http://{HOST}")
    c.cookies.set(cookie_name(TOKEN), TOKEN)
    return c


def _install(home: Path, source: Path, name: str = NAME) -> Path:
    dest = home / "bench" / name
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("homes"))
    return dest


def _row(html: str, config: str, key: str) -> str:
    section = html.split(f'data-config="{config}"', 1)[1].split("</section>", 1)[0]
    return section.split(f'data-rate="{key}"', 1)[1].split("</tr>", 1)[0]


def test_the_bench_page_shows_the_reports_rates_intervals_and_comparison(isolated_home: Path, made_bench: Path) -> None:
    _install(isolated_home, made_bench)
    summary = json.loads((made_bench / "summary.json").read_text())
    c = _client()
    listing = c.get("/bench")
    assert listing.status_code == 200 and f'href="/bench/{NAME}"' in listing.text
    assert 'data-state="complete"' in listing.text and "4 of 4" in listing.text
    assert '<a href="/bench">Bench</a>' in listing.text  # the nav link
    page = c.get(f"/bench/{NAME}")
    assert page.status_code == 200 and 'id="bench-state" data-state="complete"' in page.text
    for label in ("honest", "careless"):
        stats = summary["overall"][label]
        for key in ("correct", "false_proved", "false_self_reviewed", "proved", "self_reviewed", "refuted"):
            rate = stats[key]
            row = _row(page.text, label, key)
            assert f"{rate['hits']} / {rate['n']}" in row, (label, key)
            if rate["n"]:
                text = f"{100 * rate['rate']:.0f} % [{100 * rate['low']:.0f} %, {100 * rate['high']:.0f} %]"
                assert text in row, (label, key)
                # the interval band is drawn where the interval is
                assert f'class="ci" x="{round(100 * rate["low"], 1)}"' in row
    # the careless model vouches for the false statement: not proved, self-reviewed, in its own row
    careless = summary["overall"]["careless"]
    assert careless["false_self_reviewed"]["hits"] == 1 and careless["false_proved"]["hits"] == 0
    assert "1 / 1" in _row(page.text, "careless", "false_self_reviewed")
    assert f"{careless['undecided']} / {careless['runs']}" in _row(page.text, "careless", "undecided")
    (pair,) = summary["comparisons"]
    row = page.text.split(f'data-pair="{pair["a"]}|{pair["b"]}"', 1)[1].split("</tr>", 1)[0]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
    assert cells[:7] == [
        pair["a"],
        pair["b"],
        str(pair["pairs"]),
        str(pair["both_correct"]),
        str(pair["only_a_correct"]),
        str(pair["only_b_correct"]),
        str(pair["neither_correct"]),
    ]
    assert f"{pair['mcnemar_p']:.4g}" == cells[7]


def test_a_partial_bench_shows_what_it_has_and_says_what_is_missing(isolated_home: Path, made_bench: Path) -> None:
    dest = _install(isolated_home, made_bench)
    lines = (dest / "results.jsonl").read_text().splitlines()
    (dest / "results.jsonl").write_text("\n".join(lines[:3]) + "\n")
    (dest / "summary.json").unlink()
    page = _client().get(f"/bench/{NAME}")
    assert page.status_code == 200 and 'data-state="partial"' in page.text
    assert "1 of 4 planned runs have no result" in page.text
    # the rates are over the three runs that finished, never over the planned four
    total = sum(int(m) for m in re.findall(r'data-rate="undecided">.*?<td>\d+ / (\d+)</td>', page.text, re.S))
    assert total == 3


@pytest.mark.parametrize(
    "damage, reason",
    [
        ("manifest_garbage", "cannot read bench.json"),
        ("manifest_missing", "not a bench folder"),
        ("manifest_not_bench", "not a bench manifest"),
        ("torn_line", "1 unreadable line(s) in results.jsonl"),
        ("binary_results", "cannot read results.jsonl"),
        ("bad_problems", "does not describe a bench"),
    ],
)
def test_a_damaged_bench_is_shown_as_damaged_never_a_500(
    isolated_home: Path, made_bench: Path, damage: str, reason: str
) -> None:
    dest = _install(isolated_home, made_bench)
    manifest = dest / "bench.json"
    if damage == "manifest_garbage":
        manifest.write_text("{not json")
    elif damage == "manifest_missing":
        manifest.unlink()
    elif damage == "manifest_not_bench":
        manifest.write_text("[1, 2]")
    elif damage == "torn_line":
        with (dest / "results.jsonl").open("a") as fh:
            fh.write('{"run_id": "honest/demo-sq')
    elif damage == "binary_results":
        (dest / "results.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    else:
        data = json.loads(manifest.read_text())
        data["problems"] = [{"nonsense": True}]
        manifest.write_text(json.dumps(data))
    c = _client()
    page = c.get(f"/bench/{NAME}")
    assert page.status_code == 200, page.text[-500:]
    assert 'id="bench-state" data-state="damaged"' in page.text and reason in page.text
    assert str(isolated_home) not in page.text  # the folder's name, not the machine's path
    listing = c.get("/bench")
    assert listing.status_code == 200 and 'data-state="damaged"' in listing.text


def test_no_path_leads_out_of_the_bench_folder(isolated_home: Path, made_bench: Path, tmp_path: Path) -> None:
    _install(isolated_home, made_bench)
    (isolated_home / "bench" / "link").symlink_to(made_bench, target_is_directory=True)
    c = _client()
    for path in ("/bench/link", "/bench/%2e%2e", "/bench/.hidden", "/bench/nope", f"/bench/{NAME}%2F..%2F..%2Fruns"):
        r = c.get(path)
        assert r.status_code == 404, path
    assert 'href="/bench/link"' not in c.get("/bench").text


def test_no_bench_yet(isolated_home: Path) -> None:
    r = _client().get("/bench")
    assert r.status_code == 200 and "No bench yet" in r.text


def test_the_bench_routes_are_behind_the_guard(isolated_home: Path) -> None:
    guard = create_app(TOKEN, allowed_hosts("127.0.0.1", 8765))
    paths = {getattr(route, "path", "") for route in guard.app.routes}
    assert {"/bench", "/bench/{bench}"} <= paths  # so the security walk over every route covers them
    anonymous = TestClient(guard, base_url=f"http://{HOST}", follow_redirects=False)
    signed_in = _client()
    for path in ("/bench", f"/bench/{NAME}"):
        assert anonymous.get(path).status_code == 401, path
        assert signed_in.get(path, headers={"host": "evil.example:8765"}).status_code == 421, path
        assert signed_in.post(path).status_code in (403, 405), path  # read only


@pytest.mark.slow
@pytest.mark.e2e
def test_the_bench_page_in_chromium_draws_the_intervals(
    server: tuple[str, str],  # noqa: F811
    made_bench: Path,
    isolated_home: Path,
    shots: Path,  # noqa: F811
) -> None:
    """The bars are drawn under the page's strict CSP (no style attribute), band and tick inside the track."""
    url, base = server
    _install(isolated_home, made_bench)
    with chromium_page() as (_browser, page):
        refused: list[str] = []
        page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
        page.goto(url)
        page.goto(f"{base}/bench")
        page.click(f'a[href="/bench/{NAME}"]')
        row = page.locator('section[data-config="careless"] tr[data-rate="false_self_reviewed"]')
        track = row.locator("svg.rbar .track").bounding_box()
        band = row.locator("svg.rbar .ci").bounding_box()
        assert track and band and band["width"] > 10 and track["x"] <= band["x"] <= track["x"] + track["width"]
        page.screenshot(path=str(shots / "ui-bench.png"), full_page=True)
    assert not refused, refused
