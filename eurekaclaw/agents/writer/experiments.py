"""The experiment section's data: the plot series from the Experiment stage's CSV and the
bound-check table.

The CSV is in long format, `series,t,mean,stderr,q10,q50,q90`, one series per policy plus
`bound:<name>` series for theoretical bounds. The plot's data are written into the .tex itself
(thinned to at most MAX_POINTS per series on a log-spaced grid, matching the log-scale x axis)
so the paper is self-contained and cannot fail on a missing file.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

from eurekaclaw.types.artifacts import BoundCheck, ExperimentResult

MAX_POINTS = 120
BOUND_PREFIX = "bound:"


@dataclass
class Series:
    name: str
    points: list[tuple[float, float]] = field(default_factory=list)

    @property
    def is_bound(self) -> bool:
        return self.name.startswith(BOUND_PREFIX)

    @property
    def label(self) -> str:
        return self.name[len(BOUND_PREFIX) :] + " (bound)" if self.is_bound else self.name


@dataclass
class ExperimentView:
    status: str
    reason: str
    series: list[Series] = field(default_factory=list)
    checks: list[BoundCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    csv_name: str | None = None
    y_label: str = "mean over runs"

    @property
    def has_plot(self) -> bool:
        return any(s.points for s in self.series)


def _thin(points: list[tuple[float, float]], limit: int = MAX_POINTS) -> list[tuple[float, float]]:
    if len(points) <= limit:
        return points
    lo, hi = math.log(points[0][0]), math.log(points[-1][0])
    kept: list[tuple[float, float]] = []
    target_i = 0
    for k in range(limit):
        target = lo + (hi - lo) * k / (limit - 1)
        while target_i < len(points) - 1 and math.log(points[target_i][0]) < target:
            target_i += 1
        if not kept or kept[-1] is not points[target_i]:
            kept.append(points[target_i])
    if kept[-1] is not points[-1]:
        kept.append(points[-1])
    return kept


def read_plot_csv(path: Path) -> tuple[list[Series], list[str]]:
    """Series from the long-format CSV, plus notes on rows that could not be used."""
    notes: list[str] = []
    by_name: dict[str, list[tuple[float, float]]] = {}
    skipped = 0
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"series", "t", "mean"} - set(reader.fieldnames or [])
        if missing:
            return [], [f"{path.name} lacks the columns {', '.join(sorted(missing))}; no plot"]
        for row in reader:
            try:
                t, mean = float(row["t"]), float(row["mean"])
            except (TypeError, ValueError):
                skipped += 1
                continue
            # the x axis is logarithmic: t must be positive; NaN/inf cannot be drawn
            if not (math.isfinite(t) and math.isfinite(mean)) or t <= 0:
                skipped += 1
                continue
            by_name.setdefault((row.get("series") or "").strip() or "series", []).append((t, mean))
    if skipped:
        notes.append(f"{skipped} row(s) of {path.name} were not plotted (non-numeric, non-finite or t <= 0)")
    series = [Series(name, _thin(sorted(points))) for name, points in by_name.items()]
    return series, notes


def experiment_view(result: ExperimentResult | None, session_dir: Path | None) -> ExperimentView | None:
    """None when no experiment completed (the paper then has no experiments section)."""
    if result is None or result.status != "completed":
        return None
    view = ExperimentView(
        status=result.status,
        reason=result.reason,
        checks=list(result.bound_checks),
        notes=list(result.notes),
        csv_name=result.plot_csv,
        y_label=str(result.spec.get("metric") or result.spec.get("y_label") or "mean over runs"),
    )
    if result.plot_csv and session_dir is not None:
        path = Path(session_dir) / Path(result.plot_csv).name
        if path.is_file():
            try:
                view.series, notes = read_plot_csv(path)
                view.notes.extend(notes)
            except (OSError, UnicodeDecodeError, csv.Error) as exc:
                view.notes.append(f"could not read {path.name}: {exc}")
        else:
            view.notes.append(f"plot data {result.plot_csv} is missing from the session directory")
    return view


def fmt(value: float | None) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "--"
    return f"{value:.4g}"
