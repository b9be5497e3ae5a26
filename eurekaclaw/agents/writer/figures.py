"""The experiment's figures as pgfplots data for the paper template.

One figure per measure: the regret figure (pseudo-regret, realised regret, bounds dashed) and,
when the policies report it, the best-arm-rate figure. A bound belongs to the policies it was
derived for: it is drawn only in panels showing one of them (ExperimentView.panels), in its
policy's colour when the panel shows exactly one of its policies, and the caption names each
bound with its policies. Each panel names its instance in its
title and what it plots in its own y-axis label; a policy keeps its colour in every panel of
both figures, so they read together. At most MAX_PANELS panels per figure (the CSV has the rest).
"""

from __future__ import annotations

from typing import Any

from eurekaclaw.agents.writer.escape import Tex, escape_text
from eurekaclaw.agents.writer.experiments import BEST_ARM, ExperimentView, Panel, Series

MAX_PANELS = 8
# Ten distinct colours: more than a bandit spec's policies (MAX_POLICIES = 8), so no two policies
# of one paper share a colour.
PALETTE = (
    "blue!80!black",
    "red!80!black",
    "teal!80!black",
    "orange!90!black",
    "violet",
    "brown",
    "green!60!black",
    "magenta!80!black",
    "cyan!70!black",
    "olive",
)
BOUND_DASHES = ("dashed", "dash dot", "densely dotted", "loosely dashed")
BAND_OPACITY = "0.18"
CLIP_FACTOR = 3.0  # a bound more than this many times above the curves is cut off at the top
HEADROOM = 1.3  # the panel's top, in multiples of the highest curve (band included)


def _table(points: list[tuple[float, float]]) -> Tex:
    return Tex("t y\\\\\n" + "\\\\\n".join(f"{t:.6g} {y:.6g}" for t, y in points) + "\\\\")


def _band(s: Series, color: str) -> dict[str, Tex] | None:
    """The ± one standard error band of a curve, as one closed outline (upper, then lower back)."""
    if not (s.stderr and any(s.stderr)):
        return None
    upper = [(t, y + e) for (t, y), e in zip(s.points, s.stderr, strict=True)]
    lower = [(t, y - e) for (t, y), e in zip(s.points, s.stderr, strict=True)]
    return {
        "style": Tex(f"fill={color}, fill opacity={BAND_OPACITY}, draw=none, forget plot"),
        "data": _table(upper + lower[::-1]),
    }


def _policy(s: Series) -> str:
    return s.short_label[: -len(s.suffix)] if s.suffix else s.short_label


def _owners(bound: Series, panel: Panel, view: ExperimentView) -> list[str] | None:
    """The policies of this panel the bound was derived for; None: it is about every policy."""
    targets = view.bound_targets(bound)
    if targets is None:
        return None
    return list(dict.fromkeys(_policy(s) for s in panel.series if not s.is_bound and s.name in targets))


def _bound_entry(s: Series, panel: Panel, view: ExperimentView, colors: dict[str, str], k: int) -> dict[str, Any]:
    owners = _owners(s, panel, view)
    color = colors.get(owners[0], "black!75") if owners and len(owners) == 1 else "black!75"
    style = f"color={color}, thick, mark=none, {BOUND_DASHES[k % len(BOUND_DASHES)]}"
    return {
        "label": view.bound_label(s),
        "style": Tex(style),
        "band": None,
        "data": _table(s.points),
        "bound": s.short_label[: -len(s.suffix)],
        "owners": owners,
    }


def _curve_entry(s: Series, colors: dict[str, str]) -> dict[str, Any]:
    color = colors.setdefault(_policy(s), PALETTE[len(colors) % len(PALETTE)])
    if s.realised:
        color += "!45!white"
    return {
        "label": s.short_label,
        "style": Tex(f"color={color}, thick, mark=none"),
        "band": _band(s, color),
        "data": _table(s.points),
    }


def _panel_series(panel: Panel, colors: dict[str, str], view: ExperimentView) -> list[dict[str, Any]]:
    """A policy has one colour in every panel of both figures (first come, first served); its
    realised-regret curve is a lighter tint of it, and a bound of it alone in the panel is
    dashed in it (a bound of several or of every policy is dark grey)."""
    curves = [_curve_entry(s, colors) for s in panel.series if not s.is_bound]
    bounds = [s for s in panel.series if s.is_bound]
    return curves + [_bound_entry(s, panel, view, colors, k) for k, s in enumerate(bounds)]


def _y_range(panel: Panel) -> tuple[str, bool]:
    """Axis limits, and whether a bound leaves the panel at the top. A rate lies in [0, 1]: the
    whole range shows how far it is from always optimal. A bound far above every curve would
    flatten them all against the t axis, so the panel ends a little above the curves and their
    bands, and the bound runs out at the top (the bound table has its values)."""
    if panel.metric == BEST_ARM:
        return "ymin=0, ymax=1, ", False
    tops = [
        y + (s.stderr[i] if s.stderr else 0.0)
        for s in panel.series
        if not s.is_bound
        for i, (_, y) in enumerate(s.points)
    ]
    bounds = [y for s in panel.series if s.is_bound for _, y in s.points]
    top = max(tops, default=0.0)
    if top > 0 and bounds and max(bounds) > CLIP_FACTOR * top:
        return f"ymax={HEADROOM * top:.6g}, ", True
    return "", False


def _layout(panels: list[dict[str, Any]]) -> None:
    two = len(panels) > 1
    for k, ctx in enumerate(panels):
        ctx["width"] = "0.47" if two else "0.9"
        last = k == len(panels) - 1
        ctx["after"] = Tex("" if last else ("\\hfill" if two and k % 2 == 0 else "\\par\\medskip"))


def _bounds_phrase(panels: list[dict[str, Any]], view: ExperimentView) -> str:
    """Each bound shown, upper or lower, with the policies it was derived for (in the panels it
    appears in)."""
    owners: dict[str, list[str] | None] = {}
    for ser in (ser for p in panels for ser in p["series"] if "bound" in ser):
        seen = owners.setdefault(ser["bound"], [] if ser["owners"] is not None else None)
        if seen is not None:
            seen.extend(o for o in ser["owners"] if o not in seen)
    every = f"every {view.words.series}"
    parts = []
    for name, pols in owners.items():
        info = view.bounds.get(name)
        kind = info.kind if info else "bound"
        whom = every if pols is None else ", ".join(pols)
        parts.append(f"{name} ({kind}" + (f", for {whom})" if whom else ")"))
    head = "dashed: the theoretical bound " if len(parts) == 1 else "dashed: the theoretical bounds "
    whom = "policies" if view.words.bandit else "series"
    tail = f", each drawn only beside the {whom} it was derived for" if any(o for o in owners.values()) else ""
    return head + _join(parts) + tail


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _caption(head: str, view: ExperimentView, panels: list[dict[str, Any]]) -> Tex:
    runs = f" over {view.runs} runs" if view.runs else " over runs"
    if view.words.bandit:
        caption = head + runs + " for each policy"
    else:  # a program's series: no policies; a deterministic one has no runs to average over
        caption = head + (runs if view.runs and view.runs > 1 else "") + " for each series"
    if any(ser["band"] for p in panels for ser in p["series"]):
        caption += "; shaded: $\\pm$ one standard error"
    if any("bound" in ser for p in panels for ser in p["series"]):
        caption += "; " + _bounds_phrase(panels, view)
        if any(p["clipped"] for p in panels):
            caption += " (cut off where they leave the top of a panel; the bound table has their values)"
    tex = escape_text(caption).replace("\\$\\textbackslash{}pm\\$", "$\\pm$").replace("time t ", "time $t$ ")
    instances = list(dict.fromkeys(p["instance"] for p in panels if p["instance"]))
    if instances:
        tex += ". Instances: " + escape_text(", ".join(instances))
    if view.csv_name:
        tex += ". Data: \\texttt{" + escape_text(view.csv_name) + "}"
    return Tex(tex + ".")


def figures_context(view: ExperimentView) -> tuple[list[dict[str, Any]], list[str]]:
    """(figures, notes): each figure has panels, a caption and a label."""
    notes: list[str] = []
    colors: dict[str, str] = {}
    by_metric: dict[str, list[dict[str, Any]]] = {}
    for panel in view.panels():
        y_range, clipped = _y_range(panel)
        by_metric.setdefault(panel.metric, []).append(
            {
                "title": f"instance: {panel.instance}" if panel.instance else "",
                "x_label": Tex("horizon $t$" if view.words.bandit else "$t$"),
                "instance": panel.instance,
                "log_x": panel.log_x,
                "y_label": panel.y_label,
                "y_range": Tex(y_range),
                "clipped": clipped,
                "series": _panel_series(panel, colors, view),
            }
        )
    figures = []
    for metric, panels in by_metric.items():
        if len(panels) > MAX_PANELS:
            notes.append(
                f"{len(panels) - MAX_PANELS} plot panel(s) left out (at most {MAX_PANELS} per figure); "
                "the CSV has all data"
            )
            panels = panels[:MAX_PANELS]
        _layout(panels)
        if metric == BEST_ARM:
            head = "Best-arm rate (fraction of the pulls up to time t that chose an optimal arm), mean"
            label = "fig:best-arm-rate"
        else:
            mean = "Mean " if view.words.bandit or (view.runs or 0) > 1 else ""
            head, label = f"{mean}{view.y_label}", "fig:experiment"
            head = head[0].upper() + head[1:]
        figures.append({"panels": panels, "caption": _caption(head, view, panels), "label": Tex(label)})
    return figures, notes
