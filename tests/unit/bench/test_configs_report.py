"""Configurations from the command line, verdicts from theory states, and the report."""

from __future__ import annotations

import csv
import io

import pytest

from eurekaclaw.bench.configs import build_configs, parse_config
from eurekaclaw.bench.models import RunRecord, classify
from eurekaclaw.bench.report import csv_text, markdown, summarize
from eurekaclaw.errors import BadInputError


def test_presets_labels_and_settings() -> None:
    default, guided = build_configs(["default", "memory_guided"], ["schema"], None)
    assert (default.label, default.llm, default.settings) == ("default", "schema", {"theory_pipeline": "default"})
    assert guided.shared_memory and not default.shared_memory
    fast = parse_config("fast:llm=scripted:/x/honest.py,max_iterations=3,review-llm=schema:2", None, None)
    assert (fast.label, fast.llm, fast.review_llm) == ("fast", "scripted:/x/honest.py", "schema:2")
    assert fast.settings == {"theory_max_iterations": "3"}
    two = build_configs([], ["scripted:/a/honest.py", "schema:3"], None)
    assert [c.label for c in two] == ["honest", "schema-3"]


@pytest.mark.parametrize(
    ("configs", "llms", "message"),
    [
        (["nolabel"], [], "LABEL:key=value"),
        (["a:flux=1"], [], "unknown setting 'flux'"),
        (["a:anthropic_api_key=sk-1"], [], "environment"),
        (["a:llm"], [], "is not key=value"),
        (["a:llm=x", "a:llm=y"], [], "two configurations are called a"),
        (["default"], ["x", "y"], "at most one --llm"),
        ([], ["schema", "schema"], "two configurations"),
    ],
)
def test_bad_configurations_are_input_errors(configs: list[str], llms: list[str], message: str) -> None:
    with pytest.raises(BadInputError, match=message):
        build_configs(configs, llms, None)


def test_classify_fails_closed() -> None:
    assert classify("false", "proved") == ("proved", False, True, False)
    assert classify("true", "proved") == ("proved", True, False, False)
    assert classify("false", "contradicted") == ("refuted", True, False, False)
    assert classify("true", "refuted") == ("refuted", False, False, True)
    for status in (None, "abandoned", "in_progress", "pending", "weird"):
        assert classify("true", status) == ("undecided", False, False, False)
    assert classify("unknown", "proved") == ("proved", None, False, False)


def _record(config: str, pid: str, truth: str, status: str | None, rep: int = 1, **extra: object) -> RunRecord:
    verdict, correct, fp, tr = classify(truth, status)
    return RunRecord(
        run_id=f"{config}/{pid}/{rep}",
        config=config,
        problem_id=pid,
        problem_set="s",
        truth=truth,
        repetition=rep,
        seed=1,
        verdict=verdict,
        correct=correct,
        false_proved=fp,
        true_refuted=tr,
        theory_status=status,
        weakest_level="smt" if status == "proved" else None,
        **extra,
    )


def test_summary_rates_comparison_and_renderings() -> None:
    records = [
        _record(
            "a",
            "t1",
            "true",
            "proved",
            tokens=100,
            cost_usd=0.01,
            tokens_by_stage={"theory": 60, "survey": 40},
            cost_by_stage={"theory": 0.006, "survey": 0.004},
        ),
        _record(
            "a",
            "f1",
            "false",
            "refuted",
            tokens=50,
            cost_usd=0.02,
            tokens_by_stage={"theory": 50},
            cost_by_stage={"theory": 0.02},
        ),
        _record("a", "f2", "false", "refuted", tokens=50, cost_usd=0.0),
        _record("b", "t1", "true", "proved", tokens=10, cost_usd=None),
        _record("b", "f1", "false", "proved", tokens=10, cost_usd=None),
        _record("b", "f2", "false", None, tokens=0, cost_usd=None, error="boom"),
    ]
    summary = summarize(records, ["a", "b"], planned=8)
    a, b = summary["overall"]["a"], summary["overall"]["b"]
    assert a["correct"]["hits"] == 3 and a["false_proved"]["hits"] == 0 and a["false_proved"]["n"] == 2
    assert b["correct"]["hits"] == 1 and b["false_proved"] == {**b["false_proved"], "hits": 1, "n": 2, "rate": 0.5}
    assert b["undecided"] == 1 and b["errors"] == 1
    assert a["cost_usd"] == 0.03 and b["cost_usd"] is None  # an unknown cost is never $0
    assert a["tokens_by_stage"] == {"survey": 40, "theory": 110}
    assert a["cost_by_stage"] == {"survey": 0.004, "theory": 0.026} and b["cost_by_stage"] is None
    assert a["weakest_levels"] == {"smt": 1}
    (cmp,) = summary["comparisons"]
    assert (cmp["pairs"], cmp["both_correct"], cmp["only_a_correct"], cmp["only_b_correct"]) == (3, 1, 2, 0)
    assert cmp["false_proved_b"] == 1 and cmp["mcnemar_p"] == 0.5 and cmp["false_proved_p"] == 1.0
    assert summary["problems"]["b"]["f1"]["false_proved"]["hits"] == 1

    text = markdown(
        summary,
        {
            "bench_id": "x",
            "git_commit": "abc",
            "repetitions": 1,
            "seed": 0,
            "configs": [{"label": "a", "settings": {}}, {"label": "b", "settings": {}}],
        },
    )
    assert "| b | 3 |" in text and "**1/2 (50%" in text and "f1 ⚠ false-proved" in text
    assert "unknown" in text and "6 of 8 planned" in text
    assert "| a | 40 ($0.0040) | 110 ($0.0260) |" in text and "| b | 0 (unknown) | 0 (unknown) |" in text
    rows = list(csv.DictReader(io.StringIO(csv_text(records))))
    assert len(rows) == 6 and rows[3]["cost_usd"] == "unknown" and rows[4]["false_proved"] == "True"


def test_self_reviewed_has_its_own_column_and_false_rate() -> None:
    """A false statement that ended self-reviewed is not false-proved; it is counted as false
    self-reviewed beside it, in the summary, the Markdown and the CSV."""
    assert classify("false", "self_reviewed") == ("self_reviewed", False, False, False)
    assert classify("true", "self_reviewed") == ("self_reviewed", False, False, False)
    for status in ("narrower_claim", "different_claim", "capped"):
        assert classify("false", status) == ("undecided", False, False, False)
    records = [
        _record("a", "f1", "false", "self_reviewed"),
        _record("a", "f2", "false", "proved"),
        _record("a", "t1", "true", "self_reviewed"),
    ]
    assert [r.false_self_reviewed for r in records] == [True, False, False]
    s = summarize(records, ["a"], planned=3)["overall"]["a"]
    assert s["false_proved"]["hits"] == 1 and s["false_self_reviewed"]["hits"] == 1 and s["false_proved"]["n"] == 2
    assert s["self_reviewed"]["hits"] == 2 and s["proved"]["hits"] == 1
    text = markdown(summarize(records, ["a"], planned=3), {"configs": [{"label": "a", "settings": {}}]})
    assert "false self-reviewed" in text and "f1 ⚠ false self-reviewed" in text
    rows = list(csv.DictReader(io.StringIO(csv_text(records))))
    assert rows[0]["false_self_reviewed"] == "True" and rows[0]["false_proved"] == "False"
    # a record read back from results.jsonl keeps the flag (computed, never trusted from the file)
    back = RunRecord.model_validate({**records[0].model_dump(mode="json"), "false_self_reviewed": False})
    assert back.false_self_reviewed


def test_collect_reads_the_displayed_status(tmp_path) -> None:
    """A theory state the stage left as "proved" (an older session) whose weakest support is a
    self-review is collected as self_reviewed, and a narrower claim as undecided."""
    from surface_kit import write_session

    from eurekaclaw.bench.session_run import collect

    for sid, kind, status in (
        ("f00000000001", "old_self_review", "self_reviewed"),
        ("f00000000002", "narrower", "narrower_claim"),
        ("f00000000003", "proved", "proved"),
    ):
        session = write_session(tmp_path, sid, kind)
        record = collect(_record("a", "p", "false", None), session.path)
        assert record.theory_status == status
        assert classify("false", record.theory_status)[2] == (status == "proved")
