"""The report's time sections: the slowest runs with where their time went, each execution of
the bench with its workers' start-up, and timed-out runs counted as undecided."""

from __future__ import annotations

import csv
import io

from eurekaclaw.bench.models import RunRecord
from eurekaclaw.bench.report import csv_text, markdown, summarize


def _record(pid: str, wall: float, **kw: object) -> RunRecord:
    return RunRecord(
        run_id=f"c/{pid}/1", config="c", problem_id=pid, problem_set="s", truth="true", repetition=1, seed=1,
        wall_s=wall, **kw,
    )  # fmt: skip


def test_the_slowest_runs_come_first_with_their_largest_items() -> None:
    slow_timing = {
        "stages": {"theory": {"wall_s": 80.0, "cpu_s": 4.0}, "write": {"wall_s": 2.0, "cpu_s": 1.0}},
        "checkers": {"cvc5": {"count": 7, "wall_s": 76.0}, "z3": {"count": 7, "wall_s": 0.5}},
        "model": {"calls": 12, "wall_s": 1.5, "by_stage": {}},
        "tex_wall_s": 1.2,
    }
    records = [
        _record("quick", 0.9, cpu_s=0.5),
        _record("tail", 89.4, cpu_s=6.0, timing=slow_timing, timed_out=True, verdict="undecided"),
        _record("middle", 46.3, cpu_s=3.0),
    ]
    summary = summarize(records, ["c"], 3)
    assert [row["run_id"] for row in summary["slowest"]] == ["c/tail/1", "c/middle/1", "c/quick/1"]
    assert summary["slowest"][0]["top"][:2] == [["stage theory", 80.0], ["cvc5 ×7", 76.0]]
    assert summary["overall"]["c"]["timed_out"] == 1 and summary["overall"]["c"]["cpu_s"] == 9.5
    summary["executions"] = [
        {
            "at": "2026-11-28T05:00:00+00:00",
            "executor": "warm",
            "workers": 2,
            "wall_s": 98.0,
            "runs_finished": 3,
            "worker_startups": [{"startup_s": 4.25}, {"startup_s": 5.5}],
        }
    ]
    text = markdown(summary, {"bench_id": "b", "configs": [], "repetitions": 1, "seed": 0})
    assert "| c/tail/1 | 89.40 | 6.00 | undecided (timed out) | stage theory 80.00s; cvc5 ×7 76.00s;" in text
    assert "| warm | 2 | 98.0 | 3 | 4.25, 5.50 |" in text
    rows = list(csv.DictReader(io.StringIO(csv_text(records))))
    assert rows[1]["timed_out"] == "True" and rows[1]["cpu_s"] == "6.0"
