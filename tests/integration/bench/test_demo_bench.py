"""The scripted demonstration bench through the real `eurekaclaw bench` command, offline: its
report numbers, its files, and that it keeps every session inside the bench folder."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def bench_cli(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    env.update({"EUREKACLAW_DIR": str(home), "EUREKACLAW_OFFLINE": "1", "COLUMNS": "200", "NO_COLOR": "1"})
    return subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "bench", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=900,
    )


def test_the_demonstration_bench_and_its_report(tmp_path: Path) -> None:
    home, out = tmp_path / "home", tmp_path / "bench"
    proc = bench_cli("--demo", "--json", "-o", str(out), home=home, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    summary = json.loads(proc.stdout)
    overall = summary["overall"]
    assert list(overall) == ["honest", "careless", "careless-reviewed"]
    assert summary["finished_runs"] == summary["planned_runs"] == 12

    # honest: the statement is its claim, so the machine decides: both true ones proved by SMT,
    # both false ones refuted by a counterexample
    honest = overall["honest"]
    assert honest["correct"]["hits"] == 4 and honest["correct"]["n"] == 4
    assert honest["false_proved"]["hits"] == 0 and honest["true_refuted"]["hits"] == 0
    assert honest["weakest_levels"] == {"smt": 2} and honest["refuted"]["hits"] == 2
    assert honest["correct"]["low"] == pytest.approx(0.5101, abs=1e-4)

    # careless, reviewing itself: claimless lemmas that pass their own reviews carry every
    # statement, the false ones too, to `self-reviewed`, never to `proved`. The bench counts the
    # false ones in their own column; if the trust chain starts refusing self-reviewed claimless
    # proofs, that number drops.
    careless = overall["careless"]
    assert careless["false_proved"]["hits"] == 0 and careless["proved"]["hits"] == 0
    assert careless["false_self_reviewed"]["hits"] == 2 and careless["false_self_reviewed"]["n"] == 2
    assert careless["self_reviewed"]["hits"] == 4
    assert careless["false_self_reviewed"]["low"] == pytest.approx(0.3424, abs=1e-4)

    # the same careless prover with an independent reviewer: nothing false gets through
    reviewed = overall["careless-reviewed"]
    assert reviewed["false_proved"]["hits"] == 0 and reviewed["proved"]["hits"] == 0
    assert reviewed["undecided"] == 4

    pairs = {(c["a"], c["b"]): c for c in summary["comparisons"]}
    assert pairs[("honest", "careless")]["only_a_correct"] == 4
    assert pairs[("honest", "careless")]["false_self_reviewed_b"] == 2

    # the per-problem rows agree with the runs
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 12 and len({r["run_id"] for r in records}) == 12
    for r in records:
        assert summary["problems"][r["config"]][r["problem_id"]]["false_proved"]["hits"] == int(r["false_proved"])
        assert r["false_proved"] == (r["truth"] == "false" and r["verdict"] == "proved")
        assert Path(r["session_dir"]).is_relative_to(out / "homes")  # every session in the bench folder
        assert (Path(r["session_dir"]) / "theory_state.json").exists()
        assert r["tokens"] > 0 and r["llm_calls"] > 0 and r["cost_usd"] == 0.0
    seeds = {(r["problem_id"], r["repetition"]): set() for r in records}
    for r in records:
        seeds[(r["problem_id"], r["repetition"])].add(r["seed"])
    assert all(len(s) == 1 for s in seeds.values()), "runs pair up: one seed per problem and repetition"
    assert not (home / "runs").exists(), "no session in the user's own home"

    manifest = json.loads((out / "bench.json").read_text())
    assert manifest["versions"]["eurekaclaw"] and manifest["versions"]["python"]
    assert "commit" in manifest["git"] and manifest["seed"] == 0 and manifest["repetitions"] == 1
    assert manifest["models"] == {
        "honest": ["scripted-honest-main"],
        "careless": ["scripted-careless-main"],
        "careless-reviewed": ["scripted-careless-main"],
    }
    cfg = {c["label"]: c for c in manifest["configs"]}
    assert cfg["careless-reviewed"]["review_llm"].endswith("honest.py")
    assert cfg["honest"]["effective_settings"]["theory_max_iterations"] >= 1
    assert {p["id"]: p["truth"] for p in manifest["problems"]}["demo-cube-square"] == "false"

    md = (out / "summary.md").read_text()
    assert "| careless | 4 |" in md and "demo-cube-square ⚠ false self-reviewed" in md
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert len(rows) == 12 and {r["config"] for r in rows} == set(overall)
    for name in ("rates.svg", "tokens.svg"):
        assert (out / name).read_text().startswith("<svg")

    # the same folder again is refused; resuming a finished bench runs nothing
    again = bench_cli("--demo", "-o", str(out), home=home, cwd=tmp_path)
    assert again.returncode == 2 and "--resume" in again.stderr
    resumed = bench_cli("--resume", str(out), "--json", home=home, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert json.loads(resumed.stdout)["overall"] == overall
    assert len((out / "results.jsonl").read_text().splitlines()) == 12
