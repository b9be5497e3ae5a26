"""The one list of checkers. Mechanical checks, the portfolio's solvers, the level rule, doctor
and the names readers see all derive from it.

Checkers are found through the entry-point group `eurekaclaw.checkers` (pyproject.toml): the
built-ins register there exactly as a third-party package would. An entry point names a Checker
(checker.py) or a class or factory that returns one. Discovery runs once per process (reload()
runs it again) and never raises:

- an entry point that fails to load, or loads something that is not a Checker, is a Problem
  (doctor shows it) and is not registered;
- a checker whose name is taken by a built-in (or by an earlier third-party checker, or is one
  the runner itself writes, such as "mechanical") is refused: the first owner keeps it.

Trust: only a registered checker of kind "smt" or "formal" can give a level (mechanical.py);
run_check() keeps a checker from answering under another's name and has a third-party
counterexample re-checked exactly before it may refute anything.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any

from eurekaclaw.types.artifacts import CheckResult, Claim
from eurekaclaw.verify.checker import DEFAULT_ORDER, KINDS, Checker, CheckerKind, FormalProof

if TYPE_CHECKING:
    from collections.abc import Collection

    from eurekaclaw.line_worker import Cancel
    from eurekaclaw.verify.limits import CheckLimits

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "eurekaclaw.checkers"
# Names the runner and the theory loop write into CheckResult.checker themselves.
RESERVED_NAMES = frozenset({"mechanical", "claim", "formal", "llm_review", "citation", "coqchk"})
BUILTINS = "eurekaclaw"  # the Problem's name when the built-in checkers are not registered
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}")


@dataclass(frozen=True)
class Registered:
    checker: Checker
    source: str  # the entry point's value, "module:attribute"
    builtin: bool


@dataclass(frozen=True)
class Problem:
    """An entry point that is not (or not any more) a registered checker, and why."""

    name: str
    source: str
    detail: str


@dataclass(frozen=True)
class Registry:
    entries: tuple[Registered, ...]
    problems: tuple[Problem, ...]

    def get(self, name: str) -> Registered | None:
        return next((e for e in self.entries if e.checker.name == name), None)


def _is_builtin(ep: EntryPoint) -> bool:
    module = ep.value.split(":", 1)[0].strip()
    return module == "eurekaclaw" or module.startswith("eurekaclaw.")


def _shape_problem(obj: object) -> str | None:
    """Why `obj` is not a usable Checker, or None."""
    if not isinstance(obj, Checker):
        return f"{type(obj).__name__} is not a Checker (name, display_name, kind, available, detail, version, check)"
    if not isinstance(obj.name, str) or not _NAME.fullmatch(obj.name):
        return f"bad checker name {obj.name!r} (lower-case letters, digits, '_', '.', '-')"
    if not isinstance(obj.display_name, str) or not obj.display_name.strip():
        return "no display name"
    if obj.kind not in KINDS:
        return f"unknown kind {obj.kind!r} (one of {', '.join(KINDS)})"
    return None


def _load(ep: EntryPoint) -> Checker:
    obj: Any = ep.load()
    if isinstance(obj, type) or (callable(obj) and not isinstance(obj, Checker)):
        obj = obj()  # a class or a factory
    problem = _shape_problem(obj)
    if problem is not None:
        raise TypeError(problem)
    checker: Checker = obj
    return checker


def _order(entry: Registered) -> tuple[bool, int, str]:
    order = getattr(entry.checker, "order", DEFAULT_ORDER)
    return (not entry.builtin, order if isinstance(order, int) else DEFAULT_ORDER, entry.checker.name)


def _loaded(points: Iterable[EntryPoint]) -> tuple[list[Registered], list[Problem]]:
    loaded: list[Registered] = []
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for ep in points:
        if (ep.name, ep.value) in seen:  # the same distribution found twice on the path
            continue
        seen.add((ep.name, ep.value))
        try:
            checker = _load(ep)
        except (Exception, SystemExit) as exc:  # a broken plugin must never take a run down
            log.warning("checker %s (%s) could not be loaded: %s", ep.name, ep.value, exc)
            problems.append(Problem(ep.name, ep.value, f"not loaded: {type(exc).__name__}: {exc}"))
            continue
        loaded.append(Registered(checker, ep.value, _is_builtin(ep)))
    return loaded, problems


def _refusal(entry: Registered, owners: dict[str, Registered]) -> str | None:
    name = entry.checker.name
    if name in RESERVED_NAMES:
        return f"refused: {name!r} is a name EurekaClaw writes itself"
    owner = owners.get(name)
    if owner is None:
        return None
    who = "the built-in checker" if owner.builtin else f"the checker from {owner.source}"
    return f"refused: the name {name!r} is taken by {who}, which keeps it"


def discover(points: Iterable[EntryPoint] | None = None) -> Registry:
    """The registry built from the entry points (`points`, default: the installed ones)."""
    loaded, problems = _loaded(entry_points(group=ENTRY_POINT_GROUP) if points is None else points)
    owners: dict[str, Registered] = {}
    for entry in sorted(loaded, key=_order):  # built-ins first: a built-in always wins
        why = _refusal(entry, owners)
        if why is not None:
            log.warning("checker %s from %s %s", entry.checker.name, entry.source, why)
            problems.append(Problem(entry.checker.name, entry.source, why))
            continue
        owners[entry.checker.name] = entry
    if not any(e.builtin for e in owners.values()):
        problems.append(
            Problem(
                BUILTINS,
                ENTRY_POINT_GROUP,
                "the built-in checkers are not registered: reinstall EurekaClaw (pip install -e .) "
                "so that its entry points exist",
            )
        )
    return Registry(tuple(sorted(owners.values(), key=_order)), tuple(problems))


@functools.lru_cache(maxsize=1)
def current() -> Registry:
    """The registry of this process (discovered on first use)."""
    return discover()


def reload() -> None:
    """Forget the discovered checkers; the next question discovers them again."""
    current.cache_clear()


def all_checkers() -> tuple[Checker, ...]:
    return tuple(e.checker for e in current().entries)


def checker(name: str) -> Checker | None:
    entry = current().get(name)
    return entry.checker if entry is not None else None


def kind_of(name: str) -> CheckerKind | None:
    found = checker(name)
    return found.kind if found is not None else None


def is_builtin(name: str) -> bool:
    entry = current().get(name)
    return entry is not None and entry.builtin


def names_of_kind(kind: CheckerKind) -> tuple[str, ...]:
    return tuple(c.name for c in all_checkers() if c.kind == kind)


def checker_names(kinds: Iterable[CheckerKind] = KINDS) -> dict[str, str]:
    """Internal name -> display name, for the checkers of `kinds`."""
    wanted = set(kinds)
    return {c.name: c.display_name for c in all_checkers() if c.kind in wanted}


def problems() -> tuple[Problem, ...]:
    return current().problems


def setup_problem() -> Problem | None:
    """The problem that leaves no built-in checker registered (a stale installation), if any."""
    return next((p for p in problems() if p.name == BUILTINS and p.source == ENTRY_POINT_GROUP), None)


def _error(chk: Checker, detail: str, started: float) -> CheckResult:
    return CheckResult(checker=chk.name, verdict="error", detail=detail, seconds=round(time.monotonic() - started, 3))


def _confirmed(claim: Claim, result: CheckResult) -> CheckResult:
    """A third-party counterexample kept only if the claim fails there exactly (exact.py)."""
    from eurekaclaw.verify.exact import evaluate_claim_at

    assert result.counterexample is not None
    try:
        ev = evaluate_claim_at(claim, result.counterexample)
        holds, why = ev.holds, ev.detail
    except Exception as exc:  # a point that does not even evaluate confirms nothing
        holds, why = None, f"{type(exc).__name__}: {exc}"
    if holds is False:
        return result
    return result.model_copy(
        update={
            "verdict": "unknown",
            "counterexample": None,
            "detail": f"{result.detail} [its counterexample was not confirmed by the exact re-check: {why}]",
        }
    )


def vetted(chk: Checker, claim: Claim, result: object, started: float) -> CheckResult:
    """The result a checker returned, as far as it may be trusted: never under another name,
    and (from a third-party checker) a counterexample only once it is confirmed."""
    if not isinstance(result, CheckResult):
        return _error(chk, f"{chk.display_name} returned {type(result).__name__}, not a CheckResult", started)
    if result.checker != chk.name:
        return _error(chk, f"{chk.display_name} answered as {result.checker!r}; its answer is not counted", started)
    if result.counterexample is not None and not is_builtin(chk.name):
        return _confirmed(claim, result)
    return result


def run_check(
    chk: Checker,
    claim: Claim,
    limits: CheckLimits,
    *,
    seed: int = 0,
    proof: FormalProof | None = None,
    cancel: Cancel | None = None,
) -> CheckResult:
    """One checker on one claim. A crash is an "error" result (no evidence either way)."""
    started = time.monotonic()
    try:
        result: object = chk.check(claim, limits, seed=seed, proof=proof, cancel=cancel)
    except Exception as exc:
        log.warning("checker %s crashed: %s", chk.name, exc, exc_info=True)
        return _error(chk, f"{chk.display_name} crashed: {type(exc).__name__}: {exc}", started)
    return vetted(chk, claim, result, started)


def unavailable(checkers: Collection[Checker]) -> list[CheckResult]:
    """A "no_checker" result, with its install hint, for each checker that cannot run here."""
    return [CheckResult(checker=c.name, verdict="no_checker", detail=c.detail()) for c in checkers]
