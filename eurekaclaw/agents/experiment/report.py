"""The simulation report: what a domain's experiment backend (or sandboxed model code) returns,
validated here before any check uses it, and the CSV file the Writer plots.

A backend returns a dict of this shape (docs/mab.md, "Experiment backend contract"):
  series:    one curve per simulated policy (and instance): times t, mean, stderr, q10/q50/q90,
             and the statistics at each requested horizon (points)
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
CSV_HEADER = ("series", "t", "mean", "stderr", "q10", "q50", "q90")
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
    points: list[SeriesPoint] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Series:
        n = len(self.t)
        for key in ("mean", "stderr", "q10", "q50", "q90"):
            values = getattr(self, key)
            if values is not None and len(values) != n:
                raise ValueError(f"series {self.name}: {key} has {len(values)} values for {n} times")
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
    is the bound's value, stderr 0 and quantiles equal to the value."""
    rows: list[tuple[Any, ...]] = []
    for s in report.series:
        for i, t in enumerate(s.t):
            rows.append((s.name, t, s.mean[i], s.stderr[i], s.quantile("q10", i), s.quantile("q50", i), s.quantile("q90", i)))
    for name, points in bound_curves.items():
        for t, value in points:
            rows.append((f"bound:{name}", t, value, 0.0, value, value, value))
    return rows


def render_csv(rows: list[tuple[Any, ...]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for row in rows:
        writer.writerow([row[0], int(row[1]), *(_num(v) for v in row[2:])])
    return buf.getvalue()


def _num(value: float) -> str:
    return repr(float(value)) if math.isfinite(value) else "nan"
