"""The experiment's curves (regret_curves.csv: series, t, mean, stderr, …) as SVG geometry for
the session page: one line per series with a ±1 s.e. band, bounds dashed. Drawn here so the
page needs no plotting library; the PDF keeps the paper's own figure."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

MAX_BYTES = 5_000_000
MAX_SERIES = 12
MAX_POINTS = 300
W, H, LEFT, RIGHT, TOP, BOTTOM = 760, 360, 70, 190, 16, 40
PALETTE = ("#2f5bd3", "#d97706", "#059669", "#9333ea", "#dc2626", "#0891b2", "#65a30d", "#db2777",
           "#475569", "#a16207", "#4f46e5", "#0f766e")


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def read_curves(path: Path) -> dict[str, list[tuple[float, float, float]]] | None:
    """series -> [(t, mean, stderr)], or None when the file is not a curves table."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or not {"series", "t", "mean"} <= set(reader.fieldnames):
        return None
    curves: dict[str, list[tuple[float, float, float]]] = {}
    for row in reader:
        t, mean = _float(row.get("t", "")), _float(row.get("mean", ""))
        if t is None or mean is None:
            continue
        stderr = _float(row.get("stderr") or "") or 0.0
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


def figure(path: Path) -> dict[str, Any] | None:
    curves = read_curves(path)
    if not curves:
        return None
    names = sorted(curves, key=lambda n: (n.startswith("bound:"), n))[:MAX_SERIES]
    pts = {n: _thin(curves[n]) for n in names}
    xs = [p[0] for n in names for p in pts[n]]
    lo = min(min(p[1] - p[2] for p in pts[n]) for n in names)
    hi = max(max(p[1] + p[2] for p in pts[n]) for n in names)
    lo = min(lo, 0.0)
    x0, x1 = min(xs), max(xs)
    x1 = x1 if x1 > x0 else x0 + 1
    hi = hi if hi > lo else lo + 1
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def sx(x: float) -> float:
        return round(LEFT + (x - x0) / (x1 - x0) * pw, 1)

    def sy(y: float) -> float:
        return round(TOP + ph - (y - lo) / (hi - lo) * ph, 1)

    series = []
    for i, name in enumerate(names):
        p = pts[name]
        line = " ".join(f"{sx(t)},{sy(m)}" for t, m, _ in p)
        band = " ".join([f"{sx(t)},{sy(m + s)}" for t, m, s in p] + [f"{sx(t)},{sy(m - s)}" for t, m, s in reversed(p)])
        series.append({"name": name, "color": PALETTE[i % len(PALETTE)], "line": line,
                       "band": band if any(s > 0 for _, _, s in p) else "",
                       "bound": name.startswith("bound:"), "ly": TOP + 14 + 18 * i})
    ticks_y = [{"y": sy(lo + k * (hi - lo) / 4), "label": _label(lo + k * (hi - lo) / 4)} for k in range(5)]
    ticks_x = [{"x": sx(x0 + k * (x1 - x0) / 4), "label": f"{x0 + k * (x1 - x0) / 4:.0f}"} for k in range(5)]
    return {"name": path.name, "width": W, "height": H, "left": LEFT, "top": TOP, "pw": pw, "ph": ph,
            "legend_x": W - RIGHT + 14, "series": series, "ticks_x": ticks_x, "ticks_y": ticks_y,
            "omitted": max(0, len(curves) - MAX_SERIES)}
