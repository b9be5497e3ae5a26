"""Everything the experiment found, for the writer's prompt, each fact once.

The model writes the experiments discussion from this text only: what was run (the instance,
in the words of its kind: a program's series are no policies), each bound as an upper or a
lower bound with its origin, every simulated series with its last measured value per instance,
what each figure panel shows, each bound check once, every rate fit (the failed ones with why),
the violations and the per-lemma claim violation rates.

Every fact is marked reader-facing or internal. Internal facts (the stage's notes: validator
messages, work units, sandbox details; a skip or failure reason) are kept in the session's
records and never reach the prompt: a model shown "limit 1.5e+09" repeats it in every section.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eurekaclaw.agents.writer.experiments import ExperimentView, fmt
from eurekaclaw.types.artifacts import ExperimentResult

MAX_NOTES = 8
LEAD = (
    "(The paper states the setup, the bounds and what held itself, from the records; discuss what the "
    "results mean, do not repeat these facts or their numbers.)"
)


@dataclass(frozen=True)
class Fact:
    """One line of the brief under its heading; `internal` lines never reach the model."""

    heading: str
    text: str
    internal: bool = False


def _policies(view: ExperimentView) -> list[str]:
    lines = []
    for s in view.series:
        if s.is_bound or not s.points:
            continue
        t, value = s.points[-1]
        se = f" ± {fmt(s.stderr[-1])}" if len(s.stderr) == len(s.points) and s.stderr else ""
        where = f" on instance {s.instance}" if s.instance else ""
        at = f"T={int(t)}" if view.words.bandit else f"t={int(t)}"
        lines.append(f"- {s.short_label}{where}: {view.y_label} {fmt(value)}{se} at {at}")
    return lines


def _panels(view: ExperimentView) -> list[str]:
    lines = []
    axis_name = "horizon" if view.words.bandit else "t axis"
    for n, panel in enumerate(view.panels(), start=1):
        names = ", ".join(view.bound_label(s) if s.is_bound else s.short_label for s in panel.series)
        axis = f"log-scaled {axis_name}" if panel.log_x else f"linear {axis_name}"
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
        at = f"T={c.horizon}" if view.words.bandit else f"t={c.horizon}"
        lines.append(
            f"- {c.name} ({source}) at {at}: empirical {fmt(c.empirical_mean)} "
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


def _heading(facts: list[Fact], heading: str, lines: list[str], internal: bool = False) -> None:
    facts.extend(Fact(heading, line.removeprefix("- "), internal) for line in lines)


def brief_facts(view: ExperimentView | None, result: ExperimentResult | None) -> list[Fact]:
    """Every fact of the brief in order, each marked reader-facing or internal."""
    facts: list[Fact] = []
    if result is not None:
        facts.append(Fact("", f"status: {result.status}"))
        if result.reason:
            facts.append(Fact("", f"reason: {result.reason}", internal=True))
    if view is not None:
        series = "policies simulated (last horizon):" if view.words.bandit else "series computed (last t):"
        _heading(facts, "what was run:", view.setup)
        _heading(facts, "the bounds drawn:", view.curves)
        _heading(facts, series, _policies(view))
        _heading(facts, "the figure (one panel per instance):", _panels(view))
        _heading(facts, "bound checks:", _checks(view))
    if result is not None:
        _heading(facts, "rate fits:", _fits(result))
        _heading(facts, "violations of the theorem's bounds:", list(result.violations))
        rates = [f"{k}: {fmt(v)}" for k, v in sorted(result.claim_violation_rates.items())]
        _heading(facts, "lemma claims checked on sampled values (violation rate):", rates)
        notes = list(dict.fromkeys(n for n in result.notes if n.strip()))
        _heading(facts, "stage notes (internal):", notes[:MAX_NOTES], internal=True)
    return facts


def experiment_brief(view: ExperimentView | None, result: ExperimentResult | None) -> str:
    """The prompt's <experiment> text ('' when there was no experiment): the reader-facing facts
    under their headings; the internal ones are left out."""
    if view is None and result is None:
        return ""
    parts: list[str] = [LEAD]
    heading = None
    for fact in brief_facts(view, result):
        if fact.internal:
            continue
        if fact.heading != heading and fact.heading:
            parts.append(fact.heading)
        heading = fact.heading
        parts.append(f"- {fact.text}" if fact.heading else fact.text)
    return "\n".join(parts)
