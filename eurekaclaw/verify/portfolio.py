"""The checks of one claim as a portfolio, and the session's memo of them (issue 27 item 4).

The falsifier and Z3 start together, cvc5 when Z3 gives up or after a head start of half a
second (measured: warm Z3 decides most claims in 0.01–0.3 s, and a solver stopped mid-query is
a worker killed and restarted). The first decisive answer settles the SMT part:
a confirmed counterexample (the falsifier's, or a solver model that exact.py re-checked) or a
solver's proof (unsat of the negation) sets a `Cancel` that kills the other solver's worker
process group at once. "unknown" and "error" decide nothing: the other solver then keeps its
own time-out.

The falsifier is never stopped by a proof. It is the refutation path that does not go through
the SMT translation, and it is cheap (its budget is a cap; most claims take far less). If it
confirms a counterexample to a claim a solver proved, the translation or the solver is wrong:
the refutation stands, as it did when every checker was awaited, and the disagreement is
added as an "error" check so that it is seen (fail closed). What the portfolio gives up: once
one solver has proved a claim, the other solver's opinion is not waited for (the same
translation feeds both, so they rarely disagree; benchmarks/bench_claim_checks.py compares the
verdicts with the wait-for-all behaviour on the project's claim table).

Within a session (`claim_check_session()`, entered by the Theory stage) identical claims are
checked once: the SMT part is keyed by the normalised claim, the solvers and their time-out
(a new seed changes nothing for a solver), the falsifier by the claim, its seed and budget.

Which checkers take part comes from the registry (registry.py): every available "numeric"
checker beside the falsifier (each memoised the same way), and the "smt" solvers in the
registry's order, the first leading. A registered third-party checker runs through
registry.run_check (its counterexamples re-checked exactly); the built-in ones through
`_falsify` and `smt_check` here, the seams the tests replace.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterator

from eurekaclaw.line_worker import Cancel
from eurekaclaw.types.artifacts import CheckResult, Claim
from eurekaclaw.verify import registry
from eurekaclaw.verify.builtin import Falsifier, SmtSolver
from eurekaclaw.verify.checker import Checker
from eurekaclaw.verify.falsifier import falsify
from eurekaclaw.verify.limits import CheckLimits
from eurekaclaw.verify.smt import smt_check

log = logging.getLogger(__name__)

HEAD_START_S = 0.5  # the lead solver's head start (see _run_solvers)
CACHED_NOTE = " [same claim checked earlier in this session]"
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\S")

Part = tuple[list[CheckResult], bool]  # the results, and whether they may be remembered


def _expr(text: str) -> str:
    # Spacing is not meaning; tokens stay separated so that `a b` never becomes `ab`.
    return " ".join(_TOKEN.findall(text))


def canonical_claim(claim: Claim) -> str:
    """The claim as a key: expressions with normalised spacing, variables by name, assumptions
    sorted and deduplicated (they are a conjunction)."""
    variables = sorted((v.model_dump(mode="json") for v in claim.variables), key=lambda v: str(v["name"]))
    assumptions = sorted({_expr(a) for a in claim.assumptions})
    return json.dumps([variables, assumptions, _expr(claim.conclusion)], sort_keys=True)


def is_refutation(result: CheckResult) -> bool:
    return result.verdict == "failed" and result.counterexample is not None


def solver_proof(result: CheckResult) -> bool:
    """A registered SMT checker's proof."""
    return result.verdict == "passed" and registry.kind_of(result.checker) == "smt"


def available_solvers() -> tuple[str, ...]:
    """The registered SMT checkers that can run here, the lead first."""
    return tuple(c.name for c in registry.all_checkers() if c.kind == "smt" and c.available())


def decisive(result: CheckResult) -> bool:
    """A confirmed counterexample, or a solver's proof."""
    return is_refutation(result) or solver_proof(result)


class ClaimCheckCache:
    """One session's claim checks. Only parts that ended on their own are kept: an "error" (a
    worker died) or solvers stopped because the falsifier refuted the claim run again next
    time. Concurrent checks of the same part share one run."""

    def __init__(self) -> None:
        self._entries: dict[str, asyncio.Future[list[CheckResult] | None]] = {}
        self.runs = 0
        self.hits = 0

    async def get(self, key: str, compute: Callable[[], Awaitable[Part]]) -> list[CheckResult]:
        while (pending := self._entries.get(key)) is not None:
            stored = await asyncio.shield(pending)
            if stored is not None:
                self.hits += 1
                return [_cached_copy(r) for r in stored]
        future: asyncio.Future[list[CheckResult] | None] = asyncio.get_running_loop().create_future()
        self._entries[key] = future
        self.runs += 1
        results: list[CheckResult] = []
        keep = False
        try:
            results, keep = await compute()
        finally:
            if not keep:
                del self._entries[key]  # before waking the waiters: they run it themselves
            future.set_result([r.model_copy(deep=True) for r in results] if keep else None)
        return results


def _cached_copy(result: CheckResult) -> CheckResult:
    return result.model_copy(deep=True, update={"detail": result.detail + CACHED_NOTE, "seconds": 0.0})


_SESSION_CACHE: contextvars.ContextVar[ClaimCheckCache | None] = contextvars.ContextVar(
    "eurekaclaw_claim_check_cache", default=None
)


@contextlib.contextmanager
def claim_check_session() -> Iterator[ClaimCheckCache]:
    """Identical claims are checked once inside this block (and in the tasks it starts). A
    context variable, not a module global: two sessions in one process never share results."""
    cache = ClaimCheckCache()
    token = _SESSION_CACHE.set(cache)
    try:
        yield cache
    finally:
        _SESSION_CACHE.reset(token)


def session_cache() -> ClaimCheckCache | None:
    return _SESSION_CACHE.get()


async def _memo(cache: ClaimCheckCache | None, key: str, compute: Callable[[], Awaitable[Part]]) -> list[CheckResult]:
    if cache is None:
        return (await compute())[0]
    return await cache.get(key, compute)


def _as_result(value: object, started: float) -> CheckResult:
    if isinstance(value, CheckResult):
        return value
    # A checker bug must not pass a lemma or crash the loop: it is an "error" result.
    return CheckResult(
        checker="mechanical",
        verdict="error",
        detail=f"{type(value).__name__}: {value}",
        seconds=round(time.monotonic() - started, 3),
    )


def _task_result(task: asyncio.Future[CheckResult], started: float) -> CheckResult:
    exc = task.exception()
    return _as_result(exc if exc is not None else task.result(), started)


def _falsify(claim: Claim, seed: int, budget_s: float) -> CheckResult:
    return falsify(claim, seed=seed, budget_s=budget_s).to_check_result()


def _numeric(checker: Checker, claim: Claim, seed: int, limits: CheckLimits) -> CheckResult:
    if isinstance(checker, Falsifier):
        return _falsify(claim, seed, limits.falsifier_budget_s)
    return registry.run_check(checker, claim, limits, seed=seed)


def _solve(solver: str, claim: Claim, limits: CheckLimits, cancel: Cancel) -> CheckResult:
    checker = registry.checker(solver)
    if checker is None or isinstance(checker, SmtSolver):
        # the worker pool answers for the built-in solvers (and "no_checker" for a name it
        # does not know)
        return smt_check(claim, timeout_s=limits.smt_timeout_s, solver=solver, cancel=cancel)
    return registry.run_check(checker, claim, limits, cancel=cancel)


async def _run_numeric(checker: Checker, claim: Claim, seed: int, limits: CheckLimits) -> Part:
    started = time.monotonic()
    try:
        result = await asyncio.to_thread(_numeric, checker, claim, seed, limits)
    except Exception as exc:
        result = _as_result(exc, started)
    return [result], result.verdict != "error"


async def _run_solvers(claim: Claim, solvers: tuple[str, ...], limits: CheckLimits, cancel: Cancel, stop: bool) -> Part:
    started = time.monotonic()
    if not solvers:
        return [], True

    def start(solver: str) -> asyncio.Future[CheckResult]:
        return asyncio.ensure_future(asyncio.to_thread(_solve, solver, claim, limits, cancel))

    lead, rest = solvers[0], solvers[1:]
    tasks = {lead: start(lead)}
    if rest and stop:
        # The lead solver decides most claims in a fraction of a second: the others start when
        # it gives up or after a head start, so a warm worker is not killed (and restarted, about
        # a second of imports) for every claim.
        done, _ = await asyncio.wait([tasks[lead]], timeout=HEAD_START_S)
        if not (done and decisive(_task_result(tasks[lead], started))):
            tasks.update({s: start(s) for s in rest})
    else:
        tasks.update({s: start(s) for s in rest})
    decided, window_closed = await _await_solvers(tasks, lead, limits, cancel, stop)
    results = [
        _task_result(tasks[s], started)
        if s in tasks
        else CheckResult(checker=s, verdict="skipped", detail=f"not started: {lead} decided the claim first")
        for s in solvers
    ]
    if window_closed:
        why = (
            f"stopped: {lead} gave up on this claim and no other solver answered within "
            f"{limits.smt_second_opinion_s:g} s more (SMT_SECOND_OPINION_S)"
        )
        results = [r.model_copy(update={"detail": why}) if r.verdict == "skipped" else r for r in results]
    cut_short = any(r.verdict == "skipped" for r in results) and not (decided or window_closed)
    return results, not cut_short and all(r.verdict != "error" for r in results)


async def _await_solvers(
    tasks: dict[str, asyncio.Future[CheckResult]], lead: str, limits: CheckLimits, cancel: Cancel, stop: bool
) -> tuple[bool, bool]:
    """Wait for the solvers: (a decisive answer came, the second-opinion window closed). In a
    portfolio, a decisive answer stops the others at once, and once the lead solver has given up
    the others get at most `smt_second_opinion_s` more: on the project's two claim tables (158
    claims), cvc5 decided none of the 23 that Z3 gave up on, even with the whole time-out
    (docs/benchmarks.md), so waiting the full time-out there only delays the lemma."""
    pending: set[asyncio.Future[CheckResult]] = set(tasks.values())
    deadline: float | None = None
    decided = window_closed = False
    while pending:
        wait_s = None if deadline is None else max(0.0, deadline - time.monotonic())
        done, pending = await asyncio.wait(pending, timeout=wait_s, return_when=asyncio.FIRST_COMPLETED)
        if not done:
            window_closed = True
            cancel.set()  # the remaining solvers' workers are killed; they answer "skipped"
            deadline = None
            continue
        for task in done:
            if task.exception() is not None:
                continue  # reported as an error result by the caller
            if decisive(task.result()):
                decided = True
                if stop:
                    cancel.set()
            elif stop and task is tasks[lead] and deadline is None and len(tasks) > 1:
                deadline = time.monotonic() + min(limits.smt_second_opinion_s, limits.smt_timeout_s)
    return decided, window_closed and not decided


def disagreement(results: list[CheckResult]) -> CheckResult | None:
    """An "error" check when a solver proved a claim that a confirmed counterexample refutes."""
    hit = next((r for r in results if is_refutation(r)), None)
    provers = [r.checker for r in results if solver_proof(r)]
    if hit is None or not provers:
        return None
    log.warning("checkers disagree on a claim: %s proved it, %s refuted it", provers, hit.checker)
    return CheckResult(
        checker="mechanical",
        verdict="error",
        detail=(
            f"checkers disagree: {' and '.join(provers)} proved the claim, but {hit.checker} found a "
            f"counterexample the exact re-check confirmed ({hit.counterexample}); the refutation stands — "
            "the SMT translation or the solver is wrong here, please report this claim"
        ),
    )


async def check_claim(
    claim: Claim,
    *,
    seed: int = 0,
    budget_s: float | None = None,
    smt_timeout_s: float | None = None,
    solvers: tuple[str, ...] | None = None,
    portfolio: bool = True,
    cache: ClaimCheckCache | None = None,
    limits: CheckLimits | None = None,
) -> list[CheckResult]:
    """The numeric checkers' results (the falsifier first), then each solver's (`solvers`,
    default: the available registered SMT checkers), plus a disagreement check if any.
    `portfolio=False` is the previous behaviour: every checker runs to its own end. `limits`
    (default: Settings' defaults) is what the checkers get; `budget_s` and `smt_timeout_s`,
    when given, replace its falsifier budget and SMT time-out."""
    cancel = Cancel()
    canon = canonical_claim(claim)
    limits = limits if limits is not None else CheckLimits()
    if budget_s is not None:
        limits = dataclasses.replace(limits, falsifier_budget_s=budget_s)
    if smt_timeout_s is not None:
        limits = dataclasses.replace(limits, smt_timeout_s=smt_timeout_s)
    names = available_solvers() if solvers is None else solvers
    numeric = [c for c in registry.all_checkers() if c.kind == "numeric" and c.available()]

    async def numeric_part(checker: Checker) -> list[CheckResult]:
        key = f"{checker.name}|{seed}|{limits.falsifier_budget_s!r}|{canon}"
        results = await _memo(cache, key, lambda: _run_numeric(checker, claim, seed, limits))
        if portfolio and any(is_refutation(r) for r in results):
            cancel.set()
        return results

    async def smt_part() -> list[CheckResult]:
        key = f"smt|{','.join(names)}|{limits.smt_timeout_s!r}|{limits.smt_second_opinion_s!r}|{canon}"
        return await _memo(cache, key, lambda: _run_solvers(claim, names, limits, cancel, portfolio))

    try:
        parts = await asyncio.gather(*(numeric_part(c) for c in numeric), smt_part())
    finally:
        cancel.set()  # a cancelled check (Ctrl+C, a tool's time limit) leaves no solver running
    results = [r for part in parts for r in part]
    note = disagreement(results)
    return [*results, note] if note is not None else results
