"""Everything the experiment found, for the writer's prompt, each fact once.

The model writes the experiments discussion from this text only: every simulated policy with its
last measured value per instance, what each figure panel shows, each bound check once, every
rate fit (the failed ones with why), the violations and the per-lemma claim violation rates.
"""

from __future__ import annotations

from typing import Any

from eurekaclaw.agents.writer.experiments import ExperimentView, fmt
from eurekaclaw.types.artifacts import ExperimentResult

MAX_NOTES = 8


def _policies(view: ExperimentView) -> list[str]:
    lines = []
    for s in view.series:
        if s.is_bound or not s.points:
            continue
        t, value = s.points[-1]
        se = f" ± {fmt(s.stderr[-1])}" if len(s.stderr) == len(s.points) and s.stderr else ""
        where = f" on instance {s.instance}" if s.instance else ""
        lines.append(f"- {s.short_label}{where}: {view.y_label} {fmt(value)}{se} at T={int(t)}")
    return lines


def _panels(view: ExperimentView) -> list[str]:
    lines = []
    for n, panel in enumerate(view.panels(), start=1):
        names = ", ".join(s.short_label for s in panel.series)
        axis = "log-scaled horizon" if panel.log_x else "linear horizon"
        title = f"instance {panel.instance}" if panel.instance else "the simulated instance"
        lines.append(f"- panel {n} ({title}, {axis}, y: {panel.y_label}): {names}")
    return lines


def _checks(view: ExperimentView) -> list[str]:
    seen: set[tuple[Any, ...]] = set()
    lines = []
    for c in view.checks:
        key = (c.name, c.horizon, round(c.empirical_mean, 9), round(c.theoretical, 9), c.held)
        if key in seen:
            continue
        seen.add(key)
        source = "the theorem's bound" if c.from_theorem else "the domain's default bound"
        lines.append(
            f"- {c.name} ({source}) at T={c.horizon}: empirical {fmt(c.empirical_mean)} "
            f"(s.e. {fmt(c.std_error)}) vs bound {fmt(c.theoretical)}: " + ("held" if c.held else "VIOLATED")
        )
    return lines


def _fits(result: ExperimentResult) -> list[str]:
    seen: set[tuple[Any, ...]] = set()
    lines = []
    for fit in result.rate_fits:
        key = (fit.get("bound"), fit.get("series"))
        if key in seen:
            continue
        seen.add(key)
        claimed, observed = fit.get("claimed_rate"), fit.get("observed_rate")
        head = f"- rate of {fit.get('bound')} on {fit.get('series')}: claimed {claimed}, observed {observed}"
        if fit.get("consistent"):
            lines.append(head + ": consistent")
            continue
        why = []
        if observed not in (None, claimed):
            why.append(f"the data grow like {observed}, not {claimed}")
        ratio = fit.get("slope_ratio")
        if isinstance(ratio, (int, float)):
            why.append(f"fitted slope {fmt(float(ratio))} times the theory's")
        lines.append(head + ": NOT consistent" + (f" ({'; '.join(why)})" if why else ""))
    return lines


def experiment_brief(view: ExperimentView | None, result: ExperimentResult | None) -> str:
    """The prompt's <experiment> text; '' when there was no experiment."""
    if view is None and result is None:
        return ""
    parts: list[str] = []
    if result is not None:
        parts.append(f"status: {result.status}" + (f" ({result.reason})" if result.reason else ""))
    if view is not None:
        policies = _policies(view)
        if policies:
            parts += ["policies simulated (last horizon):", *policies]
        panels = _panels(view)
        if panels:
            parts += ["the figure (one panel per instance):", *panels]
        checks = _checks(view)
        if checks:
            parts += ["bound checks:", *checks]
    if result is not None:
        fits = _fits(result)
        if fits:
            parts += ["rate fits:", *fits]
        if result.violations:
            parts += ["violations of the theorem's bounds:", *(f"- {v}" for v in result.violations)]
        if result.claim_violation_rates:
            parts += [
                "lemma claims checked on sampled values (violation rate):",
                *(f"- {k}: {fmt(v)}" for k, v in sorted(result.claim_violation_rates.items())),
            ]
        notes = list(dict.fromkeys(n for n in result.notes if n.strip()))
        if notes:
            parts += ["notes:", *(f"- {n}" for n in notes[:MAX_NOTES])]
            if len(notes) > MAX_NOTES:
                parts.append(f"- ... {len(notes) - MAX_NOTES} more note(s)")
    return "\n".join(parts)
