"""What the bench pages show, read from the folders `eurekaclaw bench` writes under
$EUREKACLAW_DIR/bench/<bench id>/ (bench.json, results.jsonl, summary.json).

The rates are computed by the bench's own code (runner.read_results, report.summarize,
stats.wilson) from results.jsonl, so an interrupted bench without a summary shows what it has,
and the page can never say something the bench's report would not. Read only: a damaged folder
is shown as damaged with the reason, never repaired or moved.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from eurekaclaw.errors import EurekaError

BENCH_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,120}$")
# (key in the report's per-configuration stats, label, what the rate is over)
RATES = (
    ("correct", "correct verdict", "judged runs"),
    ("false_proved", "false-proved", "runs on false statements"),
    ("false_self_reviewed", "false self-reviewed", "runs on false statements"),
    ("true_refuted", "true refuted", "runs on true statements"),
    ("proved", "proved", "all runs"),
    ("self_reviewed", "self-reviewed", "all runs"),
    ("refuted", "refuted", "all runs"),
    ("undecided", "undecided", "all runs"),
)


def bench_root(eurekaclaw_dir: Path) -> Path:
    """Where `eurekaclaw bench` writes a bench when no --out is given (bench/cli.py)."""
    return Path(eurekaclaw_dir) / "bench"


def find_bench(root: Path, name: str) -> Path | None:
    """The bench folder with exactly this name directly under root, or None (no path, no symlink)."""
    if not BENCH_NAME.fullmatch(name or "") or name in (".", ".."):
        return None
    path = root / name
    try:
        if path.is_symlink() or not path.is_dir():
            return None
    except OSError:
        return None
    return path


def bench_rows(root: Path) -> list[dict[str, Any]]:
    """One row per folder under root: name, date, configs, runs finished of planned, state."""
    try:
        entries = sorted((p for p in root.iterdir() if BENCH_NAME.fullmatch(p.name)), key=lambda p: p.name)
    except OSError:
        return []
    rows = []
    for path in entries:
        if path.is_symlink() or not path.is_dir():
            continue
        view = bench_view(path)
        rows.append({k: view[k] for k in ("name", "created", "configs", "finished", "planned", "state", "problems")})
    rows.sort(key=lambda r: (r["created"] or "", r["name"]), reverse=True)
    return rows


def _manifest(path: Path) -> tuple[dict[str, Any] | None, str]:
    from eurekaclaw.bench import runner

    if (path / runner.MANIFEST).is_symlink():
        return None, f"{runner.MANIFEST} is a symbolic link"
    try:
        return runner.load_manifest(path), ""
    except EurekaError as exc:
        # the folder's name, not the machine's path to it
        return None, exc.user_message().replace(str(path / runner.MANIFEST), runner.MANIFEST).replace(
            str(path), path.name
        )


def _unreadable_lines(path: Path) -> int:
    """Lines of results.jsonl the bench's reader skips (torn by a crash, or edited by hand)."""
    from eurekaclaw.bench.models import RunRecord

    bad = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            RunRecord.model_validate_json(line)
        except ValueError:
            bad += 1
    return bad


def _stop_reason(path: Path) -> str:
    try:
        data = json.loads((path / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return str(data.get("stop_reason") or "") if isinstance(data, dict) else ""


def bench_view(path: Path) -> dict[str, Any]:
    """Everything the bench page shows; `state` is complete, partial or damaged, `problems`
    says why it is not complete."""
    from eurekaclaw.bench import runner
    from eurekaclaw.bench.report import summarize

    view: dict[str, Any] = {
        "name": path.name,
        "created": None,
        "configs": [],
        "finished": 0,
        "planned": None,
        "state": "damaged",
        "problems": [],
        "summary": None,
        "rates": [],
        "manifest": None,
    }
    manifest, problem = _manifest(path)
    if manifest is None:
        view["problems"].append(problem)
        return view
    view["manifest"] = manifest
    view["created"] = str(manifest.get("created_at") or "") or None
    try:
        options = runner.options_from_manifest(manifest)
        specs = runner.plan(options, path)
    except (ValueError, TypeError, KeyError) as exc:
        view["problems"].append(f"{runner.MANIFEST} does not describe a bench: {type(exc).__name__}")
        return view
    labels = [c.label for c in options.configs]
    planned = len(specs)
    view["configs"], view["planned"] = labels, planned
    results = path / runner.RESULTS
    try:
        if results.is_symlink():
            raise OSError("symbolic link")
        records = runner.read_results(path)
        bad = _unreadable_lines(results) if results.exists() else 0
    except (OSError, UnicodeDecodeError) as exc:
        view["problems"].append(f"cannot read {runner.RESULTS}: {exc}")
        return view
    # as the runner does on resume: a record of a run no longer planned is not counted
    planned_ids = {s.run_id for s in specs}
    records = [r for r in records if r.run_id in planned_ids]
    if bad:
        view["problems"].append(f"{bad} unreadable line(s) in {runner.RESULTS} (not counted)")
    summary = summarize(records, labels, planned)
    view["summary"], view["finished"] = summary, len(records)
    view["rates"] = _rates(summary)
    view["stop_reason"] = _stop_reason(path)
    if len(records) < planned:
        view["problems"].append(f"{planned - len(records)} of {planned} planned runs have no result")
    view["state"] = "damaged" if bad else "partial" if len(records) < planned else "complete"
    return view


def _rates(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Per configuration, each rate as the report has it (undecided through the same Wilson
    interval, since the report gives only its count), with the percentages the bars are drawn at."""
    from eurekaclaw.bench.stats import wilson

    out = []
    for label, stats in summary["overall"].items():
        rows = []
        for key, name, over in RATES:
            rate = wilson(stats["undecided"], stats["runs"]).as_dict() if key == "undecided" else stats[key]
            rows.append({"key": key, "name": name, "over": over, **rate, **_bar(rate)})
        out.append({"config": label, "stats": stats, "rates": rows})
    return out


def _bar(rate: dict[str, Any]) -> dict[str, Any]:
    if not rate["n"]:
        return {"pct": None, "low_pct": None, "width_pct": None}
    low, high = float(rate["low"]), float(rate["high"])
    return {
        "pct": round(100 * float(rate["rate"]), 1),
        "low_pct": round(100 * low, 1),
        "width_pct": round(100 * (high - low), 1),
    }
