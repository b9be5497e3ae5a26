"""The experiment's curves (regret_curves.csv: series, t, mean, stderr, … and optionally
best_arm_rate_mean, best_arm_rate_stderr) as SVG geometry for the session page, one chart per
measure like the paper: regret (one line per series with a ±1 s.e. band, bounds dashed) and,
when the policies report it, the best-arm rate (the fraction of pulls so far that chose an
optimal arm, on a fixed 0–1 axis). A series keeps its colour in both charts. Drawn here so the
page needs no plotting library; the PDF keeps the paper's own figures."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_BYTES = 5_000_000
MAX_SERIES = 12
MAX_POINTS = 300
W, H, LEFT, RIGHT, TOP, BOTTOM = 760, 360, 70, 190, 16, 40
PALETTE = (
    "#2f5bd3",
    "#d97706",
    "#059669",
    "#9333ea",
    "#dc2626",
    "#0891b2",
    "#65a30d",
    "#db2777",
    "#475569",
    "#a16207",
    "#4f46e5",
    "#0f766e",
)
BOUND_PREFIX = "bound:"
Curves = dict[str, list[tuple[float, float, float]]]  # series -> [(t, mean, stderr)]


@dataclass(frozen=True)
class Measure:
    key: str
    mean: str  # the CSV column of the mean and of its standard error
    stderr: str
    y_label: str
    caption: str
    y_range: tuple[float, float] | None = None  # fixed axis; None: fitted to the curves


REGRET = Measure(
    "regret", "mean", "stderr", "mean regret", "mean over runs with ±1 standard error band; dashed: bounds"
)
BEST_ARM = Measure(
    "best_arm_rate",
    "best_arm_rate_mean",
    "best_arm_rate_stderr",
    "fraction of optimal pulls",
    "best-arm rate: fraction of the pulls up to time t that chose an optimal arm, "
    "mean over runs with ±1 standard error band",
    y_range=(0.0, 1.0),
)
MEASURES = (REGRET, BEST_ARM)


def _float(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _rows(path: Path) -> csv.DictReader[str] | None:
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or not {"series", "t", "mean"} <= set(reader.fieldnames):
        return None
    return reader


def read_curves(path: Path, measure: Measure = REGRET) -> Curves | None:
    """The measure's curves, or None when the file is not a curves table or has none of them."""
    reader = _rows(path)
    if reader is None:
        return None
    curves: Curves = {}
    for row in reader:
        t, mean = _float(row.get("t")), _float(row.get(measure.mean))
        if t is None or mean is None:
            continue
        stderr = _float(row.get(measure.stderr)) or 0.0
        curves.setdefault(row.get("series") or "?", []).append((t, mean, abs(stderr)))
    return {k: sorted(v) for k, v in curves.items() if v} or None


def _thin(points: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    if len(points) <= MAX_POINTS:
        return points
    step = len(points) / MAX_POINTS
    kept = [points[int(i * step)] for i in range(MAX_POINTS)]
    return kept + [points[-1]] if kept[-1] != points[-1] else kept


def _label(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _order(curves: Curves) -> list[str]:
    """Policies first, bounds after them: the same order (so the same colours) in every chart."""
    return sorted(curves, key=lambda n: (n.startswith(BOUND_PREFIX), n))


CLIP_FACTOR, HEADROOM = 3.0, 1.3  # as in the paper: a bound far above the curves runs out at the top
LOG_X_SPAN = 100  # a horizon spanning two decades or more is drawn on a log scale, as in the paper


def _y_limits(pts: Curves, measure: Measure) -> tuple[float, float, bool]:
    """(bottom, top, whether a bound leaves the top). A bound more than CLIP_FACTOR times above
    every curve would flatten them against the t axis, so the chart ends a little above them."""
    if measure.y_range is not None:
        return measure.y_range[0], measure.y_range[1], False
    curves = [p for n, ps in pts.items() if not n.startswith(BOUND_PREFIX) for p in ps]
    everything = [p for ps in pts.values() for p in ps]
    lo = min(0.0, min(p[1] - p[2] for p in everything))
    top = max((p[1] + p[2] for p in curves), default=0.0)
    hi = max(p[1] + p[2] for p in everything)
    clipped = top > 0 and hi > CLIP_FACTOR * top
    hi = HEADROOM * top if clipped else hi
    return lo, (hi if hi > lo else lo + 1), clipped


def _nice_ticks(lo: float, hi: float) -> tuple[float, float, list[float]]:
    """Round tick values (steps of 1, 2, 2.5 or 5 times a power of ten), the axis widened to them."""
    raw = (hi - lo) / 4
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * (1 - 1e-9))
    lo, hi = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
    return lo, hi, [lo + k * step for k in range(round((hi - lo) / step) + 1)]


def _x_axis(x0: float, x1: float, pw: float) -> tuple[Any, list[dict[str, Any]]]:
    """The t scale and its ticks: decades when t spans LOG_X_SPAN or more, else five even ones."""
    if x0 > 0 and x1 / x0 >= LOG_X_SPAN:
        a, b = math.log10(x0), math.log10(x1)

        def sx(x: float) -> float:
            return round(LEFT + (math.log10(x) - a) / (b - a) * pw, 1)

        decades = [10.0**k for k in range(math.ceil(a - 1e-9), math.floor(b + 1e-9) + 1)]
        return sx, [{"x": sx(d), "label": f"{d:,.0f}"} for d in decades]

    def sx_lin(x: float) -> float:
        return round(LEFT + (x - x0) / (x1 - x0) * pw, 1)

    return sx_lin, [{"x": sx_lin(x0 + k * (x1 - x0) / 4), "label": f"{x0 + k * (x1 - x0) / 4:,.0f}"} for k in range(5)]


def _owner(name: str, names: list[str], targets_of: dict[str, set[str]]) -> str | None:
    """The one series of this chart a bound curve was derived for ("bound:<b>", or the
    per-instance "bound:<b>@<instance>"), or None when it is for several or for every one."""
    base, instance = name[len(BOUND_PREFIX) :], ""
    targets = targets_of.get(base)
    if targets is None and "@" in base:
        base, instance = base.rsplit("@", 1)
        targets = targets_of.get(base)
    mine = [n for n in names if n in (targets or ()) and (not instance or n.endswith("@" + instance))]
    return mine[0] if len(mine) == 1 else None


def _chart(
    path: Path, measure: Measure, curves: Curves, colors: dict[str, str], targets_of: dict[str, set[str]]
) -> dict[str, Any]:
    names = _order(curves)[:MAX_SERIES]
    pts = {n: _thin(curves[n]) for n in names}
    xs = [p[0] for n in names for p in pts[n]]
    x0, x1 = min(xs), max(xs)
    x1 = x1 if x1 > x0 else x0 + 1
    lo, hi, clipped = _y_limits(pts, measure)
    lo, hi, y_values = _nice_ticks(lo, hi)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    sx, ticks_x = _x_axis(x0, x1, pw)

    def sy(y: float) -> float:
        return round(TOP + ph - (y - lo) / (hi - lo) * ph, 1)

    series = []
    for i, name in enumerate(names):
        p = pts[name]
        line = " ".join(f"{sx(t)},{sy(m)}" for t, m, _ in p)
        band = " ".join([f"{sx(t)},{sy(m + s)}" for t, m, s in p] + [f"{sx(t)},{sy(m - s)}" for t, m, s in reversed(p)])
        bound = name.startswith(BOUND_PREFIX)
        owner = _owner(name, names, targets_of) if bound else None
        series.append(
            {
                "name": f"{name[len(BOUND_PREFIX) :]} (bound)" if bound else name,
                "color": colors[owner or name],
                "owner": owner,
                "line": line,
                "band": band if any(s > 0 for _, _, s in p) else "",
                "bound": bound,
                "ly": TOP + 14 + 18 * i,
            }
        )
    caption = measure.caption
    if any(c["owner"] for c in series):
        caption += ", a bound of one policy in that policy's colour"
    caption += "; a bound far above the curves is cut off at the top" if clipped else ""
    return {
        "name": path.name,
        "metric": measure.key,
        "y_label": measure.y_label,
        "caption": caption,
        "width": W,
        "height": H,
        "left": LEFT,
        "top": TOP,
        "pw": pw,
        "ph": ph,
        "clipped": clipped,
        "legend_x": W - RIGHT + 14,
        "series": series,
        "ticks_x": ticks_x,
        "ticks_y": [{"y": sy(v), "label": _label(v)} for v in y_values],
        "omitted": max(0, len(curves) - MAX_SERIES),
    }


def figures(path: Path, targets_of: dict[str, set[str]] | None = None) -> list[dict[str, Any]]:
    """The charts of one curves file: regret, then the best-arm rate when the file has it.
    `targets_of`: bound name -> the series it was derived for (from the experiment result)."""
    found = [(m, c) for m in MEASURES if (c := read_curves(path, m))]
    names = _order({n: [] for _, c in found for n in c})
    colors = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}
    return [_chart(path, m, c, colors, targets_of or {}) for m, c in found]
