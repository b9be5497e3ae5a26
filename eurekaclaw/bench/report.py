"""Aggregate run records into rates per configuration and per problem, compare configurations
pairwise, and render the summary as JSON, Markdown and CSV.

The headline is the false-proved rate: runs on a false statement that ended `proved`, over all
runs on false statements. Beside it, the false self-reviewed rate: runs on a false statement whose
theorem ended `self_reviewed` (every lemma proven, the weakest only reviewed by the model that wrote
it); those are not counted as proved, but a reader must see how often one model vouches for a
false statement. Errors and budget stops count as runs (undecided), never as absent:
a configuration that crashes on the hard problems must not look better for it.
"""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from typing import Any

from eurekaclaw.bench.models import RunRecord
from eurekaclaw.bench.stats import mcnemar_exact, wilson
from eurekaclaw.bench.timing import top_items

CSV_FIELDS = (
    "run_id",
    "config",
    "problem_id",
    "problem_set",
    "truth",
    "repetition",
    "seed",
    "verdict",
    "correct",
    "false_proved",
    "false_self_reviewed",
    "true_refuted",
    "session_status",
    "theory_status",
    "weakest_level",
    "lemmas",
    "proven_lemmas",
    "refinement_cycles",
    "counterexamples",
    "llm_calls",
    "tokens",
    "cost_usd",
    "eval_total",
    "wall_s",
    "cpu_s",
    "timed_out",
    "model",
    "session_id",
    "error",
)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _cost(records: list[RunRecord]) -> float | None:
    """The total cost, or None when any run called a model without a price (never a false $0)."""
    if any(r.cost_usd is None for r in records):
        return None
    return round(sum(r.cost_usd or 0.0 for r in records), 6)


def _group_stats(records: list[RunRecord]) -> dict[str, Any]:
    judged = [r for r in records if r.correct is not None]
    on_false = [r for r in records if r.truth == "false"]
    on_true = [r for r in records if r.truth == "true"]
    by_stage: Counter[str] = Counter()
    cost_by_stage: Counter[str] = Counter()
    for r in records:
        by_stage.update(r.tokens_by_stage)
        cost_by_stage.update(r.cost_by_stage)
    costs_known = all(r.cost_usd is not None for r in records)
    return {
        "runs": len(records),
        "correct": wilson(sum(1 for r in judged if r.correct), len(judged)).as_dict(),
        "false_proved": wilson(sum(1 for r in on_false if r.false_proved), len(on_false)).as_dict(),
        "false_self_reviewed": wilson(sum(1 for r in on_false if r.false_self_reviewed), len(on_false)).as_dict(),
        "true_refuted": wilson(sum(1 for r in on_true if r.true_refuted), len(on_true)).as_dict(),
        "proved": wilson(sum(1 for r in records if r.verdict == "proved"), len(records)).as_dict(),
        "self_reviewed": wilson(sum(1 for r in records if r.verdict == "self_reviewed"), len(records)).as_dict(),
        "refuted": wilson(sum(1 for r in records if r.verdict == "refuted"), len(records)).as_dict(),
        "undecided": sum(1 for r in records if r.verdict == "undecided"),
        "errors": sum(1 for r in records if r.error),
        "weakest_levels": dict(Counter(r.weakest_level for r in records if r.verdict == "proved" and r.weakest_level)),
        "lemmas_mean": _mean([r.lemmas for r in records]),
        "refinement_cycles_mean": _mean([r.refinement_cycles for r in records]),
        "counterexamples": sum(r.counterexamples for r in records),
        "llm_calls": sum(r.llm_calls for r in records),
        "tokens": sum(r.tokens for r in records),
        "tokens_mean": _mean([r.tokens for r in records]),
        "tokens_by_stage": dict(sorted(by_stage.items())),
        # None when a run's cost is unknown: a partial sum would read as the whole
        "cost_by_stage": {k: round(v, 6) for k, v in sorted(cost_by_stage.items())} if costs_known else None,
        "cost_usd": _cost(records),
        "eval_mean": _mean([r.eval_total for r in records if r.eval_total is not None]),
        "wall_s": round(sum(r.wall_s for r in records), 3),
        "cpu_s": round(sum(r.cpu_s or 0.0 for r in records), 3),
        "timed_out": sum(1 for r in records if r.timed_out),
    }


def compare(records: list[RunRecord], a: str, b: str) -> dict[str, Any]:
    """McNemar's exact test on runs paired by (problem, repetition); only judged pairs count."""
    left = {(r.problem_id, r.repetition): r for r in records if r.config == a and r.correct is not None}
    right = {(r.problem_id, r.repetition): r for r in records if r.config == b and r.correct is not None}
    keys = sorted(set(left) & set(right))
    both = sum(1 for k in keys if left[k].correct and right[k].correct)
    only_a = sum(1 for k in keys if left[k].correct and not right[k].correct)
    only_b = sum(1 for k in keys if right[k].correct and not left[k].correct)
    return {
        "a": a,
        "b": b,
        "pairs": len(keys),
        "both_correct": both,
        "only_a_correct": only_a,
        "only_b_correct": only_b,
        "neither_correct": len(keys) - both - only_a - only_b,
        "false_proved_a": sum(1 for k in keys if left[k].false_proved),
        "false_proved_b": sum(1 for k in keys if right[k].false_proved),
        "false_self_reviewed_a": sum(1 for k in keys if left[k].false_self_reviewed),
        "false_self_reviewed_b": sum(1 for k in keys if right[k].false_self_reviewed),
        "mcnemar_p": round(mcnemar_exact(only_a, only_b), 6),
        # the headline compared on its own: pairs where exactly one side proved a false statement
        "false_proved_p": round(
            mcnemar_exact(
                sum(1 for k in keys if left[k].false_proved and not right[k].false_proved),
                sum(1 for k in keys if right[k].false_proved and not left[k].false_proved),
            ),
            6,
        ),
    }


def summarize(records: list[RunRecord], configs: list[str], planned: int) -> dict[str, Any]:
    by_config: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        by_config[r.config].append(r)
    problems: dict[str, dict[str, Any]] = {}
    for label in configs:
        per_problem: dict[str, list[RunRecord]] = defaultdict(list)
        for r in by_config.get(label, []):
            per_problem[r.problem_id].append(r)
        problems[label] = {
            pid: {"truth": rs[0].truth, "problem_set": rs[0].problem_set, **_group_stats(rs)}
            for pid, rs in sorted(per_problem.items())
        }
    pairs = [compare(records, configs[i], configs[j]) for i in range(len(configs)) for j in range(i + 1, len(configs))]
    return {
        "planned_runs": planned,
        "finished_runs": len(records),
        "slowest": slowest(records),
        "overall": {label: _group_stats(by_config.get(label, [])) for label in configs},
        "problems": problems,
        "comparisons": pairs,
    }


def slowest(records: list[RunRecord], n: int = 10) -> list[dict[str, Any]]:
    """The runs that took longest, with where their time went (bench/timing.py)."""
    top = sorted(records, key=lambda r: -r.wall_s)[:n]
    return [
        {
            "run_id": r.run_id,
            "wall_s": r.wall_s,
            "cpu_s": r.cpu_s,
            "verdict": r.verdict,
            "timed_out": r.timed_out,
            "worker": r.worker,
            "top": [[name, seconds] for name, seconds in top_items(r.timing)],
        }
        for r in top
    ]


def _time_lines(summary: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    if summary.get("slowest"):
        lines += [
            "",
            "## Slowest runs (where the time went: wall seconds of the largest stages, checkers, model calls, TeX)",
            "",
            "| run | wall s | CPU s | verdict | largest items |",
            "|---|---|---|---|---|",
        ]
        for row in summary["slowest"]:
            items = "; ".join(f"{name} {seconds:.2f}s" for name, seconds in row["top"]) or "–"
            cpu = "–" if row["cpu_s"] is None else f"{row['cpu_s']:.2f}"
            verdict = row["verdict"] + (" (timed out)" if row["timed_out"] else "")
            lines.append(f"| {row['run_id']} | {row['wall_s']:.2f} | {cpu} | {verdict} | {items} |")
    runs = summary.get("executions") or []
    if runs:
        lines += [
            "",
            "## Executions (each start or resume of this bench)",
            "",
            "| at | executor | workers | wall s | runs finished | worker start-up s (each) |",
            "|---|---|---|---|---|---|",
        ]
        for e in runs:
            each = ", ".join(f"{float(w.get('startup_s') or 0):.2f}" for w in e.get("worker_startups", [])) or "–"
            lines.append(
                f"| {e['at']} | {e['executor']} | {e['workers']} | {e['wall_s']:.1f} | {e['runs_finished']} | {each} |"
            )
    return lines


def _rate(d: dict[str, Any]) -> str:
    if not d["n"]:
        return "n/a"
    return f"{d['hits']}/{d['n']} ({d['rate']:.0%}, {d['low']:.0%}–{d['high']:.0%})"


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def markdown(summary: dict[str, Any], manifest: dict[str, Any]) -> str:
    lines = [f"# Bench {manifest.get('bench_id', '')}", ""]
    lines.append(
        f"- commit: {manifest.get('git_commit') or 'unknown'}; eurekaclaw {manifest.get('versions', {}).get('eurekaclaw', '?')}"
    )
    lines.append(
        f"- runs: {summary['finished_runs']} of {summary['planned_runs']} planned; "
        f"{manifest.get('repetitions')} repetition(s), seed {manifest.get('seed')}"
    )
    for cfg in manifest.get("configs", []):
        models = (
            ", ".join(sorted(set(manifest.get("models", {}).get(cfg["label"], []))))
            or cfg.get("llm")
            or "configured backend"
        )
        extra = ", ".join(f"{k}={v}" for k, v in cfg.get("settings", {}).items())
        lines.append(f"- config `{cfg['label']}`: model {models}" + (f"; {extra}" if extra else ""))
    lines += [
        "",
        "Rates with 95 % Wilson intervals. False-proved: runs on a false statement that ended `proved`. "
        "False self-reviewed: runs on a false statement that ended `self-reviewed` (its weakest support a "
        "review by the proving model itself; not counted as proved).",
        "",
    ]
    lines.append(
        "| config | runs | correct verdict | false-proved | false self-reviewed | true refuted | proved | self-reviewed "
        "| refuted | undecided (errors) | tokens | cost | wall s |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, s in summary["overall"].items():
        lines.append(
            f"| {label} | {s['runs']} | {_rate(s['correct'])} | **{_rate(s['false_proved'])}** | "
            f"{_rate(s['false_self_reviewed'])} | {_rate(s['true_refuted'])} | {_rate(s['proved'])} | "
            f"{_rate(s['self_reviewed'])} | {_rate(s['refuted'])} | {s['undecided']} ({s['errors']}) | {s['tokens']} | "
            f"{_money(s['cost_usd'])} | {s['wall_s']:.1f} |"
        )
    if summary["comparisons"]:
        lines += [
            "",
            "## Paired comparison (McNemar exact test on correct verdicts, pairs = same problem and repetition)",
            "",
            "| A | B | pairs | both | only A | only B | neither | p | false-proved A / B | p (false-proved) |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for c in summary["comparisons"]:
            lines.append(
                f"| {c['a']} | {c['b']} | {c['pairs']} | {c['both_correct']} | {c['only_a_correct']} | "
                f"{c['only_b_correct']} | {c['neither_correct']} | {c['mcnemar_p']:.4g} | "
                f"{c['false_proved_a']} / {c['false_proved_b']} | {c['false_proved_p']:.4g} |"
            )
    stages = sorted({k for s in summary["overall"].values() for k in s["tokens_by_stage"]})
    if stages:
        lines += [
            "",
            "## Tokens (cost) by stage",
            "",
            "| config | " + " | ".join(stages) + " |",
            "|---|" + "---|" * len(stages),
        ]
        for label, s in summary["overall"].items():
            costs = s["cost_by_stage"]
            cells = [
                f"{s['tokens_by_stage'].get(k, 0)} ({_money(costs.get(k, 0.0) if costs is not None else None)})"
                for k in stages
            ]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += _time_lines(summary)
    lines += [
        "",
        "## Per problem",
        "",
        "| config | problem | truth | runs | proved | self-reviewed | refuted | undecided | weakest level when proved "
        "| lemmas | refinements | tokens (mean) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, per in summary["problems"].items():
        for pid, s in per.items():
            levels = ", ".join(f"{k}×{v}" for k, v in sorted(s["weakest_levels"].items())) or "–"
            flag = (
                " ⚠ false-proved"
                if s["false_proved"]["hits"]
                else " ⚠ false self-reviewed"
                if s["false_self_reviewed"]["hits"]
                else " ⚠ true refuted"
                if s["true_refuted"]["hits"]
                else ""
            )
            lines.append(
                f"| {label} | {pid}{flag} | {s['truth']} | {s['runs']} | {s['proved']['hits']} | "
                f"{s['self_reviewed']['hits']} | {s['refuted']['hits']} | "
                f"{s['undecided']} | {levels} | {s['lemmas_mean']} | {s['refinement_cycles_mean']} | {s['tokens_mean']} |"
            )
    return "\n".join(lines) + "\n"


def csv_text(records: list[RunRecord]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for r in records:
        row = r.model_dump(mode="json")
        row["cost_usd"] = "unknown" if r.cost_usd is None else r.cost_usd
        writer.writerow(row)
    return buffer.getvalue()
