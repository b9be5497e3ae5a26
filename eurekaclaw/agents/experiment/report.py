"""The simulation report: what a domain's experiment backend (or sandboxed model code) returns,
validated here before any check uses it, and the CSV file the Writer plots.

A backend returns a dict of this shape (docs/mab.md, "Experiment backend contract"):
  series:    one curve per simulated policy (and instance): times t, mean, stderr, q10/q50/q90,
             and the statistics at each requested horizon (points); optionally, aligned with t,
             the realised regret and the best-arm rate, each as mean and s.e. over runs
             (realised_mean, realised_stderr, best_arm_rate_mean, best_arm_rate_stderr)
  variables: per instance, the values bound expressions may use besides T
  bounds:    the bounds to check, each an expression in T and those variables, a direction, whether
             it is asymptotic, the claimed rate, the series it is about and the lemma it tests
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

CSV_NAME = "regret_curves.csv"
CSV_HEADER = (
    "series",
    "t",
    "mean",
    "stderr",
    "q10",
    "q50",
    "q90",
    "realised_mean",
    "realised_stderr",
    "best_arm_rate_mean",
    "best_arm_rate_stderr",
)
# Optional per-time statistics beside the main curve, in CSV column order; empty cells when absent.
EXTRA_COLUMNS = CSV_HEADER[7:]
Rate = Literal["log", "sqrt", "sqrt_log", "linear"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class SeriesPoint(_Model):
    horizon: int = Field(ge=1)
    mean: float
    stderr: float = Field(ge=0)
    q10: float | None = None
    q50: float | None = None
    q90: float | None = None
    realised_mean: float | None = None
    realised_stderr: float | None = Field(default=None, ge=0)
    best_arm_rate_mean: float | None = None
    best_arm_rate_stderr: float | None = Field(default=None, ge=0)


class Series(_Model):
    name: str = Field(min_length=1)
    policy: str = ""
    instance: str = ""
    runs: int = Field(default=1, ge=1)
    t: list[int] = Field(min_length=1)
    mean: list[float]
    stderr: list[float]
    q10: list[float] | None = None
    q50: list[float] | None = None
    q90: list[float] | None = None
    realised_mean: list[float] | None = None
    realised_stderr: list[float] | None = None
    best_arm_rate_mean: list[float] | None = None
    best_arm_rate_stderr: list[float] | None = None
    points: list[SeriesPoint] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Series:
        n = len(self.t)
        for key in ("mean", "stderr", "q10", "q50", "q90", *EXTRA_COLUMNS):
            values = getattr(self, key)
            if values is not None and len(values) != n:
                raise ValueError(f"series {self.name}: {key} has {len(values)} values for {n} times")
        for mean_key, se_key in (("realised_mean", "realised_stderr"), ("best_arm_rate_mean", "best_arm_rate_stderr")):
            mean, se = getattr(self, mean_key), getattr(self, se_key)
            if (mean is None) != (se is None):
                raise ValueError(f"series {self.name}: {mean_key} and {se_key} come together")
            if mean is not None and not all(math.isfinite(v) for v in mean + se):
                raise ValueError(f"series {self.name}: {mean_key} and {se_key} must be finite")
            if se is not None and min(se, default=0.0) < 0:
                raise ValueError(f"series {self.name}: {se_key} must be non-negative")
        if self.best_arm_rate_mean is not None and not all(-1e-9 <= v <= 1.0 + 1e-9 for v in self.best_arm_rate_mean):
            raise ValueError(f"series {self.name}: best_arm_rate_mean must lie in [0, 1]")
        if any(b <= a for a, b in zip(self.t, self.t[1:], strict=False)) or self.t[0] < 1:
            raise ValueError(f"series {self.name}: times must be increasing and positive")
        if not all(math.isfinite(v) for v in self.mean + self.stderr):
            raise ValueError(f"series {self.name}: mean and stderr must be finite")
        if not self.points:
            # Without explicit horizons, the last recorded time is the horizon checked.
            self.points = [SeriesPoint(horizon=self.t[-1], mean=self.mean[-1], stderr=self.stderr[-1])]
        return self

    def quantile(self, key: str, i: int) -> float:
        values = getattr(self, key)
        return float(values[i]) if values is not None else float(self.mean[i])

    def extra(self, i: int) -> tuple[float | None, ...]:
        """The optional statistics at time index i, in EXTRA_COLUMNS order (None when absent)."""
        return tuple(None if (v := getattr(self, key)) is None else float(v[i]) for key in EXTRA_COLUMNS)


class ReportBound(_Model):
    name: str = Field(min_length=1)
    expression: str
    direction: Literal["upper", "lower"] = "upper"
    asymptotic: bool = False
    rate: Rate | None = None
    series: list[str] = Field(default_factory=list)
    lemma_id: str | None = None


class SimulationReport(_Model):
    series: list[Series] = Field(min_length=1)
    variables: dict[str, dict[str, float]] = Field(default_factory=dict)
    bounds: list[ReportBound] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    spec: dict[str, Any] = Field(default_factory=dict)

    def series_named(self, name: str) -> Series | None:
        return next((s for s in self.series if s.name == name), None)

    def variables_for(self, series: Series) -> dict[str, float]:
        """The instance's variables; "" holds values shared by all series."""
        return {**self.variables.get("", {}), **self.variables.get(series.instance, {})}


def csv_rows(report: SimulationReport, bound_curves: dict[str, list[tuple[int, float]]]) -> list[tuple[Any, ...]]:
    """Long format: one row per (series, t). Bound curves are series `bound:<name>` whose mean
    is the bound's value, stderr 0 and quantiles equal to the value; the optional columns
    (realised regret, best-arm rate) are empty where a series does not report them."""
    rows: list[tuple[Any, ...]] = []
    none = (None,) * len(EXTRA_COLUMNS)
    for s in report.series:
        for i, t in enumerate(s.t):
            rows.append(
                (
                    s.name,
                    t,
                    s.mean[i],
                    s.stderr[i],
                    s.quantile("q10", i),
                    s.quantile("q50", i),
                    s.quantile("q90", i),
                    *s.extra(i),
                )
            )
    for name, points in bound_curves.items():
        for t, value in points:
            rows.append((f"bound:{name}", t, value, 0.0, value, value, value, *none))
    return rows


def outcome_lines(report: SimulationReport) -> list[str]:
    """One line per series that reports realised regret or best-arm rate: the three outcomes
    at its last horizon, each as mean +- one standard error over the runs."""
    lines = []
    for s in report.series:
        extra = s.extra(len(s.t) - 1)
        if all(v is None for v in extra):
            continue
        parts = [f"regret {s.mean[-1]:.4g} ± {s.stderr[-1]:.2g}"]
        if extra[0] is not None and extra[1] is not None:
            parts.append(f"realised regret {extra[0]:.4g} ± {extra[1]:.2g}")
        if extra[2] is not None and extra[3] is not None:
            parts.append(f"best-arm rate {extra[2]:.3f} ± {extra[3]:.2g}")
        lines.append(f"{s.name} at t={s.t[-1]} over {s.runs} runs (mean ± s.e.): " + ", ".join(parts))
    return lines


def render_csv(rows: list[tuple[Any, ...]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for row in rows:
        writer.writerow([row[0], int(row[1]), *("" if v is None else _num(v) for v in row[2:])])
    return buf.getvalue()


def _num(value: float) -> str:
    return repr(float(value)) if math.isfinite(value) else "nan"
