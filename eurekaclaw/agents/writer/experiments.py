"""The experiment section's data: the plot series from the Experiment stage's CSV and the
bound-check table.

Figures a reader can use: one panel per instance (a series `policy@instance` belongs to the
panel of `instance`), at most MAX_SERIES_PER_PANEL policy series per panel (more are split over
further panels), a bound of that instance dashed only in the panels that show a policy it was
derived for (the series the experiment checked it against; a bound for no named series is for
all of them), ± one standard error shaded, a logarithmic horizon only when it spans at least two decades, and the legend
outside the plot. A policy that reports its realised regret (the sum of mu* - X_t, beside the
pseudo-regret of the mean curve) gets a second curve "<policy> (realised)" with its own band,
next to it in the same panel. A policy that reports its best-arm rate (the fraction of pulls of
an optimal arm so far) gets a curve in a best-arm-rate panel of its instance, after all the
regret panels; every panel carries its own y-axis label.

The CSV is in long format, `series,t,mean,stderr,q10,q50,q90` and optionally
`realised_mean,realised_stderr,best_arm_rate_mean,best_arm_rate_stderr`, one series per policy
plus `bound:<name>` series for theoretical bounds. The plot's data are written into the .tex itself
(thinned to at most MAX_POINTS per series on a log-spaced grid, matching the log-scale x axis)
so the paper is self-contained and cannot fail on a missing file.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eurekaclaw.agents.writer.experiment_text import (
    BANDIT,
    BoundInfo,
    Words,
    bound_infos,
    curve_sentence,
    experiment_kind,
    outcome_sentences,
    setup_sentences,
)
from eurekaclaw.types.artifacts import BoundCheck, ExperimentResult

MAX_POINTS = 120
MAX_SERIES_PER_PANEL = 5
BOUND_PREFIX = "bound:"
INSTANCE_SEP = "@"
REGRET, BEST_ARM = "regret", "best_arm_rate"  # what a series measures
BEST_ARM_LABEL = "fraction of optimal pulls"


@dataclass
class Series:
    name: str
    points: list[tuple[float, float]] = field(default_factory=list)
    stderr: list[float] = field(default_factory=list)  # aligned with points; [] when unknown
    realised: bool = False  # the realised-regret curve of policy `name`
    metric: str = REGRET  # BEST_ARM: the best-arm-rate curve of policy `name`

    @property
    def is_bound(self) -> bool:
        return self.name.startswith(BOUND_PREFIX)

    @property
    def suffix(self) -> str:
        return " (bound)" if self.is_bound else (" (realised)" if self.realised else "")

    @property
    def label(self) -> str:
        return (self.name[len(BOUND_PREFIX) :] if self.is_bound else self.name) + self.suffix

    @property
    def instance(self) -> str:
        base = self.name[len(BOUND_PREFIX) :] if self.is_bound else self.name
        return base.rsplit(INSTANCE_SEP, 1)[1] if INSTANCE_SEP in base else ""

    @property
    def short_label(self) -> str:
        """The legend entry inside an instance's panel (the instance is in the panel title)."""
        base = self.name[len(BOUND_PREFIX) :] if self.is_bound else self.name
        if INSTANCE_SEP in base:
            base = base.rsplit(INSTANCE_SEP, 1)[0]
        return base + self.suffix


@dataclass
class Panel:
    instance: str
    series: list[Series]
    log_x: bool = True
    metric: str = REGRET
    y_label: str = "mean over runs"


@dataclass
class ExperimentView:
    status: str
    reason: str
    series: list[Series] = field(default_factory=list)
    checks: list[BoundCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    csv_name: str | None = None
    y_label: str = "mean over runs"
    runs: int | None = None

    rate_series: list[Series] = field(default_factory=list)  # best-arm rates, one per policy
    default_instance: str = ""  # the only instance of the spec, for series without "@instance"
    bound_series: dict[str, set[str]] = field(default_factory=dict)  # bound -> series it is about
    kind: str = BANDIT  # experiment_text.BANDIT / CODE / OTHER: which words describe it
    bounds: dict[str, BoundInfo] = field(default_factory=dict)  # upper/lower, origin, source
    # the section's fixed sentences (experiment_text.py): what was run, each dashed curve, what held
    setup: list[str] = field(default_factory=list)
    curves: list[str] = field(default_factory=list)
    outcome: list[str] = field(default_factory=list)

    @property
    def words(self) -> Words:
        return Words(self.kind)

    def section_context(self) -> dict[str, Any]:
        """The generated parts of the Experiments section, for both paper templates: plain
        strings (the .tex template escapes them)."""
        plotted = "empirical means over runs" if self.words.bandit or (self.runs or 0) > 1 else "the computed values"
        return {
            "setup": self.setup,
            "curves": self.curves,
            "outcome": self.outcome,
            "plot_note": plotted,
            "x_name": "Horizon" if self.words.bandit else "t",
        }

    def bound_info(self, bound: Series) -> BoundInfo | None:
        base = bound.name[len(BOUND_PREFIX) :]
        if base not in self.bounds and INSTANCE_SEP in base:
            base = base.rsplit(INSTANCE_SEP, 1)[0]
        return self.bounds.get(base)

    def bound_label(self, bound: Series) -> str:
        """A dashed curve's legend entry: its name and whether it is an upper or a lower bound."""
        info = self.bound_info(bound)
        name = bound.short_label[: -len(bound.suffix)]
        return f"{name} ({info.kind if info else 'bound'})"

    def bound_targets(self, bound: Series) -> set[str] | None:
        """The policy series a bound curve belongs to; None: every series (nothing names them)."""
        base = bound.name[len(BOUND_PREFIX) :]
        if base not in self.bound_series and INSTANCE_SEP in base:
            base = base.rsplit(INSTANCE_SEP, 1)[0]  # the per-instance curve "<bound>@<instance>"
        return self.bound_series.get(base) or None

    def _belongs(self, bound: Series, chunk: list[Series]) -> bool:
        targets = self.bound_targets(bound)
        return not chunk or targets is None or any(s.name in targets for s in chunk)

    @property
    def has_plot(self) -> bool:
        return any(s.points for s in self.series)

    def panels(self) -> list[Panel]:
        """The regret panels (one or more per instance), then a best-arm-rate panel per instance
        whose policies report it."""
        panels = self._regret_panels() + self._rate_panels()
        for panel in panels:  # one instance: its series carry no "@instance", the spec names it
            panel.instance = panel.instance or self.default_instance
        return panels

    def _rate_panels(self) -> list[Panel]:
        groups: dict[str, list[Series]] = {}
        for s in self.rate_series:
            if s.points:
                groups.setdefault(s.instance, []).append(s)
        panels = []
        for instance, members in groups.items():
            for chunk in _chunks(members):
                ts = [t for s in chunk for t, _ in s.points]
                panels.append(
                    Panel(instance, chunk, log_x=max(ts) / min(ts) >= 100, metric=BEST_ARM, y_label=BEST_ARM_LABEL)
                )
        return panels

    def _regret_panels(self) -> list[Panel]:
        groups: dict[str, list[Series]] = {}
        for s in self.series:
            if s.points:
                groups.setdefault(s.instance, []).append(s)
        shared_bounds = [s for s in groups.get("", []) if s.is_bound]
        if len(groups) > 1 and "" in groups and not [s for s in groups[""] if not s.is_bound]:
            del groups[""]  # bounds for every instance: drawn in each panel
        else:
            shared_bounds = []
        panels: list[Panel] = []
        for instance, members in groups.items():
            bounds = [s for s in members if s.is_bound] + shared_bounds
            for chunk in _chunks([s for s in members if not s.is_bound]) or [[]]:
                members_ = chunk + [b for b in bounds if self._belongs(b, chunk)]
                ts = [t for s in members_ for t, _ in s.points]
                panels.append(
                    Panel(instance, members_, log_x=bool(ts) and max(ts) / min(ts) >= 100, y_label=self.y_label)
                )
        return panels


def _chunks(policies: list[Series]) -> list[list[Series]]:
    """Policy curves in panels of at most MAX_SERIES_PER_PANEL, a policy's realised-regret curve
    always in the panel of its pseudo-regret curve."""
    groups: dict[str, list[Series]] = {}
    for s in policies:
        groups.setdefault(s.name, []).append(s)
    chunks: list[list[Series]] = []
    for group in groups.values():
        group.sort(key=lambda s: s.realised)
        if chunks and len(chunks[-1]) + len(group) <= MAX_SERIES_PER_PANEL:
            chunks[-1].extend(group)
        else:
            chunks.append(list(group))
    return chunks


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
    """Series from the long-format CSV (best-arm-rate curves among them, metric BEST_ARM),
    plus notes on rows that could not be used."""
    notes: list[str] = []
    by_name: dict[str, list[tuple[float, float, float]]] = {}
    realised: dict[str, list[tuple[float, float, float]]] = {}
    best_arm: dict[str, list[tuple[float, float, float]]] = {}
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
            try:
                se = float(row.get("stderr") or 0.0)
            except ValueError:
                se = 0.0
            se = se if math.isfinite(se) and se > 0 else 0.0
            name = (row.get("series") or "").strip() or "series"
            by_name.setdefault(name, []).append((t, mean, se))
            for prefix, into in (("realised", realised), ("best_arm_rate", best_arm)):
                value = _optional(row.get(f"{prefix}_mean"))
                if value is not None:
                    into.setdefault(name, []).append((t, value, _optional(row.get(f"{prefix}_stderr")) or 0.0))
    if skipped:
        notes.append(f"{skipped} row(s) of {path.name} were not plotted (not numeric, not finite, or t <= 0).")
    series = []
    for name, rows in by_name.items():
        series.append(_series(name, rows))
        if name.startswith(BOUND_PREFIX):
            continue
        if name in realised:
            series.append(_series(name, realised[name], realised=True))
        if name in best_arm:
            series.append(_series(name, best_arm[name], metric=BEST_ARM))
    return series, notes


def _series(name: str, rows: list[tuple[float, float, float]], realised: bool = False, metric: str = REGRET) -> Series:
    rows.sort()
    se_at = {(t, m): e for t, m, e in rows}
    points = _thin([(t, m) for t, m, _ in rows])
    return Series(name, points, [se_at[p] for p in points], realised=realised, metric=metric)


def _optional(cell: str | None) -> float | None:
    """A finite number from an optional CSV cell; None for an empty or unusable one."""
    try:
        value = float(cell) if cell not in (None, "") else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


def _spec_runs(spec: dict[str, object]) -> int | None:
    """Runs per series: `runs`, or a domain spec's `repetitions` (the MAB spec's name)."""
    for key in ("runs", "repetitions"):
        value = spec.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _series_runs(spec: dict[str, object]) -> int | None:
    """Runs of a program's series (recorded per series by the stage) when they all agree."""
    series = _dict(_dict(spec.get("checked")).get("series"))
    runs = {m.get("runs") for m in series.values() if isinstance(m, dict)}
    value = runs.pop() if len(runs) == 1 else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _only_instance(spec: dict[str, object]) -> str:
    instances = spec.get("instances")
    if isinstance(instances, list) and len(instances) == 1 and isinstance(instances[0], dict):
        return str(instances[0].get("name") or "")
    return ""


def bound_series(result: ExperimentResult) -> dict[str, set[str]]:
    """Which series each bound was derived for: the series the experiment checked it against
    (recorded in spec["checked"]; older results: the names of its checks and rate fits, and the
    MAB spec's `policies` of a bound). A bound found in none of them is about every series."""
    checked = _dict(result.spec.get("checked"))
    known = _dict(checked.get("bounds"))
    out: dict[str, set[str]] = {}
    for name, meta in known.items():
        if isinstance(meta, dict) and isinstance(meta.get("series"), list):
            out.setdefault(name, set()).update(str(n) for n in meta["series"])
    for check in result.bound_checks:
        bound = next((b for b in known if check.name.startswith(b + INSTANCE_SEP)), None)
        bound = bound or check.name.partition(INSTANCE_SEP)[0]
        if check.name[len(bound) + 1 :]:  # a check without "@<series>" names no series
            out.setdefault(bound, set()).add(check.name[len(bound) + 1 :])
    for fit in result.rate_fits:
        if fit.get("bound") and fit.get("series"):
            out.setdefault(str(fit["bound"]), set()).add(str(fit["series"]))
    _spec_policies(result.spec, checked, out)
    return {k: v for k, v in out.items() if v}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _spec_policies(spec: dict[str, Any], checked: dict[str, Any], out: dict[str, set[str]]) -> None:
    """A MAB spec's bound names the policies it is about; its series are those of that policy."""
    series = _dict(checked.get("series"))
    bounds = spec.get("bounds")
    for b in bounds if isinstance(bounds, list) else []:
        if not (isinstance(b, dict) and b.get("policies") and b.get("name")):
            continue
        mine = {n for n, m in series.items() if isinstance(m, dict) and m.get("policy") in b["policies"]}
        if mine:
            out.setdefault(str(b["name"]), set()).update(mine)


def experiment_view(result: ExperimentResult | None, session_dir: Path | None) -> ExperimentView | None:
    """None when no experiment completed (the paper then has no experiments section)."""
    if result is None or result.status != "completed":
        return None
    # result.notes are the stage's internals (validator messages, work units, sandbox details):
    # they stay in experiment_result.json; the reader gets the sentences of experiment_text.py
    kind = experiment_kind(result)
    view = ExperimentView(
        status=result.status,
        reason=result.reason,
        checks=list(result.bound_checks),
        notes=[],
        csv_name=result.plot_csv,
        y_label=str(
            result.spec.get("metric")
            or result.spec.get("y_label")
            or ("cumulative regret" if result.domain == "mab" else "measured value")
        ),
        runs=_spec_runs(result.spec) or _series_runs(result.spec),
        default_instance=_only_instance(result.spec),
        bound_series=bound_series(result),
        kind=kind,
        bounds=bound_infos(result),
    )
    view.setup = setup_sentences(result, kind)
    view.curves = [curve_sentence(info, view.words, view.bound_series.get(name)) for name, info in view.bounds.items()]
    view.outcome = outcome_sentences(result, view.bounds, view.words)
    if result.plot_csv and session_dir is not None:
        path = Path(session_dir) / Path(result.plot_csv).name
        if path.is_file():
            try:
                series, notes = read_plot_csv(path)
                view.series = [s for s in series if s.metric == REGRET]
                view.rate_series = [s for s in series if s.metric == BEST_ARM]
                view.notes.extend(notes)
            except (OSError, UnicodeDecodeError, csv.Error):
                view.notes.append(f"The plot data ({path.name}) could not be read, so no figure is shown.")
        else:
            view.notes.append(f"The plot data ({result.plot_csv}) is missing from the session, so no figure is shown.")
    return view


def fmt(value: float | None) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "--"
    return f"{value:.4g}"
