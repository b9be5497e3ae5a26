"""The Experiments section's fixed sentences, written by code from the experiment record.

A referee reads here what was run (for a bandit simulation: each instance's arms and means, the
policies, the horizons, the runs and the seed; for a sandboxed program: what it computed and
whether it is random at all), what each dashed curve is (an upper or a lower bound, asymptotic
or not, and where it comes from: this theorem, the literature, or the domain's reference bound
of a default experiment) and what held and what did not.

Nothing here copies a note of the Experiment stage: those notes are internals (validator
messages, work units, sandbox details) kept in experiment_result.json and the logs. What a
reader needs from them is said again in plain words from the structured record (e.g. "the
designed experiment was invalid; the default instance below was run instead").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from eurekaclaw.types.artifacts import BoundCheck, ExperimentResult

BANDIT, CODE, OTHER = "bandit", "code", "other"  # how the experiment is described
MAX_MEANS_SHOWN = 12
MAX_OUTCOME_LINES = 24
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FAMILY_WORDS = {
    "bernoulli": "Bernoulli",
    "gaussian": "Gaussian",
    "pareto": "Pareto",
    "exponential": "exponential",
    "poisson": "Poisson",
}


def num(value: Any) -> str:
    """A number as the paper prints it (4 significant digits); '--' when not finite."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return "--"
    return f"{value:.4g}"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def experiment_kind(result: ExperimentResult) -> str:
    """BANDIT: a simulation of policies on instances with arm means; CODE: a sandboxed program
    (its series are whatever it computed: no policies, arms or horizons); OTHER: a record that
    does not say (older sessions; a bandit domain's old record is still a bandit simulation)."""
    spec = result.spec
    if spec.get("source") == "code":
        return CODE
    if _has_instances(spec) or result.domain == "mab":
        return BANDIT
    return OTHER


def _has_instances(spec: dict[str, Any]) -> bool:
    instances = _list(spec.get("instances"))
    return bool(instances and _list(spec.get("policies"))) and all(
        isinstance(_dict(i).get("means"), list) for i in instances
    )


@dataclass
class BoundInfo:
    """What a bound is, for its legend entry, its sentence in the section and the brief."""

    name: str
    direction: str  # "upper", "lower" or "" (not recorded: the text then says so)
    asymptotic: bool = False
    rate: str | None = None
    known: str | None = None  # the domain's named bound it is
    lemma_id: str | None = None
    source: str = ""  # the literature source of a named bound, when the record has it
    origin: str = "theorem"  # "theorem" | "literature" | "reference" (a default experiment's)
    instance_dependent: bool = False

    @property
    def kind(self) -> str:
        """'upper bound', 'asymptotic lower bound', ... or 'bound' when the direction is unknown."""
        if self.direction not in ("upper", "lower"):
            return "bound"
        return ("asymptotic " if self.asymptotic else "") + f"{self.direction} bound"


def bound_infos(result: ExperimentResult) -> dict[str, BoundInfo]:
    """Every bound of the experiment by name: the stage's checked metadata first, the spec's own
    bound list for what that lacks (named bound, source), the checks' names for old records."""
    spec = result.spec
    checked = _dict(_dict(spec.get("checked")).get("bounds"))
    declared = {str(b.get("name")): b for b in map(_dict, _list(spec.get("bounds"))) if b.get("name")}
    sources = _dict(spec.get("bound_sources"))
    variables = {k for v in _dict(_dict(spec.get("checked")).get("variables")).values() for k in _dict(v)}
    variables |= set(_dict(spec.get("variables")))
    default = spec.get("source") == "default"
    infos: dict[str, BoundInfo] = {}
    for name in [*checked, *(n for n in declared if n not in checked)]:
        meta = {**declared.get(name, {}), **{k: v for k, v in _dict(checked.get(name)).items() if v is not None}}
        known = meta.get("known") if isinstance(meta.get("known"), str) else None
        lemma = meta.get("lemma_id") if isinstance(meta.get("lemma_id"), str) else None
        used = set(_IDENT.findall(str(meta.get("expression") or "")))
        infos[name] = BoundInfo(
            name=name,
            direction=str(meta.get("direction") or ""),
            asymptotic=bool(meta.get("asymptotic")),
            rate=meta.get("rate") if isinstance(meta.get("rate"), str) else None,
            known=known,
            lemma_id=lemma,
            source=str(sources.get(name) or ""),
            origin="reference" if default else ("literature" if known and not lemma else "theorem"),
            instance_dependent=bool(used & (variables - {"T", "K"})),
        )
    for check in result.bound_checks:  # records without metadata: the check names the bound
        found = next((b for b in infos if check.name == b or check.name.startswith(b + "@")), None)
        if found is None:
            name = check.name.partition("@")[0]
            infos[name] = BoundInfo(name=name, direction="", origin="theorem" if check.from_theorem else "reference")
    return infos


def _series_of(check_name: str, bound: str) -> str:
    return check_name[len(bound) + 1 :] if check_name.startswith(bound + "@") else ""


@dataclass
class Words:
    """The vocabulary of one kind of experiment: a program's series are not policies, its t is
    not a horizon, and what it measures is not a regret."""

    kind: str

    @property
    def bandit(self) -> bool:
        return self.kind == BANDIT

    @property
    def series(self) -> str:
        return "policy" if self.bandit else "series"

    def at(self, t: Any) -> str:
        return f"T = {t}" if self.bandit else f"t = {t}"

    def points(self, n: int) -> str:
        if self.bandit:
            return "the horizon" if n == 1 else f"all {n} horizons"
        return "the one value of t checked" if n == 1 else f"all {n} values of t checked"

    def some(self, k: int, n: int) -> str:
        return f"{k} of {n} " + ("horizons" if self.bandit else "values of t")

    @property
    def quantity(self) -> str:
        return "the expected regret" if self.bandit else "the computed values"


# --- what was run ---------------------------------------------------------------------------------
def _means(means: list[Any]) -> str:
    shown = ", ".join(num(m) for m in means[:MAX_MEANS_SHOWN])
    if len(means) > MAX_MEANS_SHOWN:
        shown += f", and {len(means) - MAX_MEANS_SHOWN} more (all listed in experiment_result.json)"
    return shown


def _instance_sentence(inst: dict[str, Any]) -> str:
    means = [m for m in _list(inst.get("means")) if isinstance(m, int | float)]
    family = str(inst.get("family") or "bernoulli")
    word = FAMILY_WORDS.get(family, family)
    extra = ""
    if family == "gaussian":
        extra = f" (noise sigma = {num(inst.get('sigma', 1.0))})"
    elif family == "pareto":
        extra = f" (tail index alpha = {num(inst.get('alpha', 2.5))})"
    text = f"Instance {inst.get('name') or '(unnamed)'}: K = {len(means)} {word} arms{extra} with means {_means(means)}"
    if means:
        best = max(means)
        gaps = [best - m for m in means if best - m > 1e-12]
        text += f" (best mean {num(best)}" + (f", smallest gap {num(min(gaps))})" if gaps else ")")
    changes = [c for c in map(_dict, _list(inst.get("changes"))) if "t" in c]
    if changes:
        times = ", ".join(str(c["t"]) for c in changes)
        text += (
            f". It is piecewise-stationary: the means change at t = {times}, and the regret is measured "
            "against the best arm of each segment"
        )
    if family != "bernoulli":
        text += f". Its rewards are {word}, so a bound proved for rewards in [0, 1] need not apply to it"
    return text + "."


def _policies(spec: dict[str, Any]) -> str:
    parts = []
    for pol in map(_dict, _list(spec.get("policies"))):
        params = _dict(pol.get("params"))
        shown = ", ".join(f"{k} = {num(v)}" for k, v in params.items())
        parts.append(str(pol.get("name") or "?") + (f" ({shown})" if shown else ""))
    return ", ".join(parts)


def _origin_sentence(source: Any) -> str:
    if source == "default":
        return (
            "The experiment designed for this theorem was invalid; the domain's default experiment below was "
            "run instead. Its bounds are the domain's reference bounds, not this theorem's, so their outcome is "
            "no evidence for or against the theorem."
        )
    if source == "repaired":
        return "The first experiment designed for this theorem was invalid; its corrected version below was run."
    return "The experiment below was designed for this theorem and run with the domain's simulator."


def _bandit_setup(spec: dict[str, Any]) -> list[str]:
    out = [_origin_sentence(spec.get("source"))]
    out += [_instance_sentence(_dict(i)) for i in _list(spec.get("instances"))]
    horizons = ", ".join(str(h) for h in _list(spec.get("horizons")))
    runs = spec.get("repetitions")
    text = f"Policies: {_policies(spec)}. Horizons T = {horizons}; {runs} independent runs per policy and instance"
    text += f", random seed {spec.get('seed', 0)}"
    if spec.get("crn", True):
        text += ", with common random numbers (every policy sees the same reward draws in a run)"
    out.append(text + ". Each curve is the mean over the runs, shaded by one standard error.")
    return out


def _deterministic(result: ExperimentResult) -> bool:
    series = _dict(_dict(result.spec.get("checked")).get("series"))
    runs = [_dict(m).get("runs") for m in series.values()]
    zero_se = all(c.std_error == 0 for c in result.bound_checks)
    return bool(series) and all(r == 1 for r in runs) and zero_se


def _code_setup(result: ExperimentResult) -> list[str]:
    spec = result.spec
    names = list(_dict(_dict(spec.get("checked")).get("series")))
    text = "The experiment is a short program written by the model for this theorem and run in an isolated sandbox"
    text += " (no network, limited time and memory)"
    if names:
        text += f"; it computed {len(names)} series: " + ", ".join(names)
    out = [text + "."]
    if _deterministic(result):
        out.append(
            "The computation is deterministic (one run, no random draws): each plotted value is exact, not an average."
        )
    elif names:
        out.append("Each plotted value is a mean over the program's runs, shaded by one standard error.")
    variables = _dict(spec.get("variables"))
    if variables:
        out.append("Constants used by the bounds: " + ", ".join(f"{k} = {num(v)}" for k, v in variables.items()) + ".")
    return out


def _other_setup(result: ExperimentResult) -> list[str]:
    facts = [
        f"{k} = {v}"
        for k, v in result.spec.items()
        if isinstance(v, int | float | str) and k not in ("source", "metric")
    ]
    head = "The session's record of this experiment does not describe its instance in detail"
    return [head + (f"; it records {', '.join(facts)}." if facts else ".")]


def setup_sentences(result: ExperimentResult, kind: str) -> list[str]:
    """What was run, in plain sentences."""
    if kind == BANDIT and _has_instances(result.spec):
        return _bandit_setup(result.spec)
    if kind == CODE:
        return _code_setup(result)
    return _other_setup(result) if result.spec else []


# --- the curves -----------------------------------------------------------------------------------
def _where_from(info: BoundInfo) -> str:
    if info.origin == "reference":
        head = "the domain's reference bound (not this theorem's)"
    elif info.origin == "literature":
        head = "a known bound from the literature, shown for comparison (not this theorem's)"
    else:
        head = "this theorem's bound" + (f" (it tests lemma {info.lemma_id})" if info.lemma_id else "")
    return head + (f"; source: {info.source}" if info.source else "")


def curve_sentence(info: BoundInfo, words: Words, targets: set[str] | None) -> str:
    """One dashed curve: upper or lower bound, its origin, and how the experiment tests it."""
    about = words.quantity if targets is None else f"{words.quantity} of {', '.join(sorted(targets))}"
    dependent = "instance-dependent " if info.instance_dependent and words.bandit else ""
    kind = info.kind
    article = "an" if (dependent or kind)[0] in "aeiou" else "a"
    text = f"{info.name}: {article} {dependent}{kind} on {about}, {_where_from(info)}."
    if info.direction not in ("upper", "lower"):
        return text + " Whether it bounds from above or below is not recorded, so no direction is claimed here."
    if info.asymptotic:
        return text + (
            " It describes the growth as " + ("T" if words.bandit else "t") + " grows without limit, not the value "
            "at any finite " + ("horizon" if words.bandit else "t") + ": the dashed curve shows its leading term, and "
            "the experiment compares only the measured growth rate with it."
        )
    side = "above" if info.direction == "upper" else "below"
    return text + (
        f" The experiment checks at each {'horizon' if words.bandit else 'value of t'} that the measured "
        f"{'mean' if words.bandit else 'value'} is not {side} it (a 99% one-sided test)."
    )


# --- what held --------------------------------------------------------------------------------------
def _check_sentence(info: BoundInfo, series: str, checks: list[BoundCheck], words: Words) -> str:
    name = f"{info.name} on {series}" if series else info.name
    failed = [c for c in checks if not c.held]
    if not failed:
        last = max(checks, key=lambda c: c.horizon)
        return (
            f"{name}: held at {words.points(len(checks))} (at {words.at(last.horizon)}: measured "
            f"{num(last.empirical_mean)} ± {num(last.std_error)}, bound {num(last.theoretical)})."
        )
    worst = min(failed, key=lambda c: c.margin if c.margin is not None else 0.0)
    consequence = (
        "evidence against this theorem's bound"
        if info.origin == "theorem"
        else "not this theorem's bound, so no evidence against it"
    )
    return (
        f"{name}: did NOT hold at {words.some(len(failed), len(checks))} (at {words.at(worst.horizon)}: measured "
        f"{num(worst.empirical_mean)} ± {num(worst.std_error)}, bound {num(worst.theoretical)}); {consequence}."
    )


def _fit_sentence(fit: dict[str, Any], words: Words) -> str:
    name = f"{fit.get('bound')} on {fit.get('series')}"
    span = _list(fit.get("t_range"))
    over = f" over {words.at(span[0])} to {span[1]}" if len(span) == 2 else ""
    rate, direction = fit.get("claimed_rate"), fit.get("direction")
    if fit.get("consistent"):
        if direction == "lower":
            return f"{name}: the measured growth{over} is at least the {rate} growth of this lower bound (consistent)."
        if direction == "upper":
            return f"{name}: the measured growth{over} is no faster than the {rate} growth of this upper bound (consistent)."
        return f"{name}: the measured growth{over} is consistent with the claimed {rate} growth."
    why = str(fit.get("why") or "")
    kind = f"this {direction} bound" if direction in ("upper", "lower") else "the bound"
    return f"{name}: the measured growth{over} is NOT consistent with the {rate} growth of {kind}" + (
        f" ({why})." if why else "."
    )


def outcome_sentences(result: ExperimentResult, infos: dict[str, BoundInfo], words: Words) -> list[str]:
    """What held and what did not, one sentence per bound and series, then the sampled claims."""
    out: list[str] = []
    checks, fits = result.bound_checks, result.rate_fits
    if checks or fits:
        held = sum(c.held for c in checks)
        consistent = sum(bool(f.get("consistent")) for f in fits)
        parts = []
        if checks:
            parts.append(f"{held} of {len(checks)} bound checks held")
        if fits:
            parts.append(f"{consistent} of {len(fits)} growth-rate comparisons were consistent")
        out.append("In all, " + " and ".join(parts) + ".")
    details: list[str] = []
    untested = []
    for name, info in infos.items():
        groups: dict[str, list[BoundCheck]] = {}
        for c in checks:
            if c.name == name or c.name.startswith(name + "@"):
                groups.setdefault(_series_of(c.name, name), []).append(c)
        mine = [f for f in fits if f.get("bound") == name]
        details += [_check_sentence(info, series, group, words) for series, group in groups.items()]
        details += [_fit_sentence(f, words) for f in mine]
        if not groups and not mine:
            untested.append(name)
    details += [f"{n} was not checked: it could not be evaluated on the data." for n in untested]
    if len(details) > MAX_OUTCOME_LINES:
        more = len(details) - MAX_OUTCOME_LINES
        details = details[:MAX_OUTCOME_LINES] + [f"{more} further result(s) are in the bound table and the record."]
    out += details
    if result.violations:
        n = len(result.violations)
        out.append(
            f"{n} of this theorem's bounds {'was' if n == 1 else 'were'} violated beyond statistical tolerance; "
            "this alone keeps the main statement from being reported as proved."
        )
    by_bounds = {info.lemma_id for info in infos.values() if info.lemma_id}
    for lemma, rate in sorted(result.claim_violation_rates.items()):
        if lemma in by_bounds:
            out.append(f"Lemma {lemma}, through the bounds that test it: {rate:.0%} of their checks failed.")
            continue
        out.append(
            f"Lemma {lemma}'s claim, evaluated at sampled values of its variables: "
            + ("no sample violated it." if rate == 0 else f"violated at {rate:.1%} of the samples.")
        )
    return out
