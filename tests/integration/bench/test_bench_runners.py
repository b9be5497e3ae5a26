"""Where bench runs happen (worker processes, Ray), resuming a bench that died mid-run, the
budgets, and the errors a user can cause. All offline with the honest scripted model."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_demo_bench import bench_cli
from toolreq import require_module

from eurekaclaw.bench import runner
from eurekaclaw.bench.configs import DEMO_DIR
from eurekaclaw.bench.models import BenchConfig
from eurekaclaw.bench.problems import load_problem_set, select

pytestmark = pytest.mark.slow

HONEST = f"scripted:{DEMO_DIR / 'honest.py'}"
EXPECTED = {"demo-square": "proved", "demo-shifted-quadratic": "refuted"}


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EUREKACLAW_OFFLINE", "1")


def _options(**kw: object) -> runner.BenchOptions:
    problems = select([load_problem_set("demo")], only=list(EXPECTED))
    return runner.BenchOptions(
        problem_sets=["demo"], problems=problems, configs=[BenchConfig(label="honest", llm=HONEST)], **kw
    )


def _verdicts(records: list) -> dict[str, str]:
    return {r.problem_id: r.verdict for r in records}


def test_two_local_workers_give_the_same_verdicts_in_other_processes(tmp_path: Path) -> None:
    outcome = runner.run_bench(_options(workers=2), tmp_path / "b")
    assert _verdicts(outcome.records) == EXPECTED
    pids = {r.worker.rsplit(":", 1)[1] for r in outcome.records}
    assert str(os.getpid()) not in pids  # ran in worker processes
    assert outcome.not_run == 0 and outcome.summary["overall"]["honest"]["correct"]["hits"] == 2


def test_resume_reruns_only_the_run_that_did_not_finish(tmp_path: Path) -> None:
    bench_dir = tmp_path / "b"
    first = runner.run_bench(_options(), bench_dir)
    assert _verdicts(first.records) == EXPECTED
    lines = (bench_dir / "results.jsonl").read_text().splitlines()
    # the bench died while writing its second record: a torn line, nothing else
    (bench_dir / "results.jsonl").write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2] + "\n")
    seen: list[str] = []
    options = runner.options_from_manifest(runner.load_manifest(bench_dir))
    again = runner.run_bench(options, bench_dir, resume=True, on_record=lambda r, i, n: seen.append(r.run_id))
    assert seen == ["honest/demo-shifted-quadratic/1"]
    assert _verdicts(again.records) == EXPECTED and again.not_run == 0
    assert again.records[0].session_id == first.records[0].session_id  # the finished run was kept
    manifest = runner.load_manifest(bench_dir)
    assert len(manifest["resumes"]) == 1 and "commit" in manifest["resumes"][0]["git"]


def test_a_total_budget_is_shared_out_and_a_starved_run_is_never_proved(tmp_path: Path) -> None:
    outcome = runner.run_bench(_options(budget_tokens=3000), tmp_path / "b")
    assert outcome.records[0].budget_tokens == 1500  # a fair share: half for the first of two runs
    spent = 0
    for r in outcome.records:  # each cap is what the total can still pay for, given what was spent
        assert r.budget_tokens is not None and spent + r.budget_tokens <= 3000
        spent += r.tokens
    square = next(r for r in outcome.records if r.problem_id == "demo-square")
    # 1500 tokens cannot carry the honest model through the true statement: it stops on its cap
    assert square.session_status == "budget_exceeded" and square.verdict == "undecided"
    assert square.correct is False and not square.false_proved


def test_a_spent_total_stops_the_bench_and_resume_with_more_continues(tmp_path: Path) -> None:
    bench_dir = tmp_path / "b"
    stopped = runner.run_bench(_options(budget_tokens=1), bench_dir)
    assert stopped.records == [] and stopped.not_run == 2 and "bench budget reached" in stopped.stop_reason
    assert json.loads((bench_dir / "summary.json").read_text())["stop_reason"]
    options = runner.options_from_manifest(runner.load_manifest(bench_dir), budget_tokens=10**9)
    resumed = runner.run_bench(options, bench_dir, resume=True)
    assert _verdicts(resumed.records) == EXPECTED and resumed.not_run == 0


def test_ray_runs_the_sessions_as_tasks(tmp_path: Path) -> None:
    require_module("ray", "the ray extra is not installed")
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        outcome = runner.run_bench(_options(ray_address="local"), tmp_path / "b")
    finally:
        ray.shutdown()
    assert _verdicts(outcome.records) == EXPECTED
    assert all(not r.worker.endswith(f":{os.getpid()}") for r in outcome.records)
    lines = (tmp_path / "b" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 2


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--llm", "nosuch"], 2, "unknown LLM backend 'nosuch'"),
        (["demo", "--llm", "anthropic"], 3, "ANTHROPIC_API_KEY is not set"),
        (["missing.yaml", "--llm", "schema"], 2, "problem file missing.yaml does not exist"),
        (["--config", "x:flux=1"], 2, "unknown setting 'flux'"),
        (["--demo", "--truth", "maybe"], 2, "--truth must be true or false"),
        (["--resume", "."], 2, "is not a bench folder"),
        (["--demo", "-o", "afile"], 2, "is a file, not a folder"),
        (["--demo", "--costs-from", "nowhere"], 2, "--costs-from nowhere: no earlier bench there"),
        (["--demo", "--ray", "ray://127.0.0.1:1", "--problem", "demo-square"], None, None),
    ],
)
def test_user_errors_are_one_line_and_leave_nothing_behind(
    tmp_path: Path, args: list[str], code: int | None, message: str | None
) -> None:
    if code is None:  # an unreachable Ray cluster: needs ray itself
        require_module("ray", "the ray extra is not installed")
        code, message = 2, "cannot connect to Ray"
    out = tmp_path / "b"
    (tmp_path / "afile").write_text("")
    extra = [] if "--resume" in args or "-o" in args else ["-o", str(out)]
    proc = bench_cli(*args, *extra, home=tmp_path / "home", cwd=tmp_path)
    assert proc.returncode == code, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert message in proc.stderr
    if "--ray" not in args:
        assert not out.exists()
