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
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterator

from eurekaclaw.line_worker import Cancel
from eurekaclaw.types.artifacts import CheckResult, Claim
from eurekaclaw.verify.falsifier import falsify
from eurekaclaw.verify.smt import smt_check

log = logging.getLogger(__name__)

SOLVERS = ("z3", "cvc5")
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


def decisive(result: CheckResult) -> bool:
    """A confirmed counterexample, or a solver's proof."""
    return is_refutation(result) or (result.checker in SOLVERS and result.verdict == "passed")


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


async def _run_falsifier(claim: Claim, seed: int, budget_s: float) -> Part:
    started = time.monotonic()
    try:
        result = await asyncio.to_thread(_falsify, claim, seed, budget_s)
    except Exception as exc:
        result = _as_result(exc, started)
    return [result], result.verdict != "error"


async def _run_solvers(claim: Claim, solvers: tuple[str, ...], timeout_s: float, cancel: Cancel, stop: bool) -> Part:
    started = time.monotonic()

    def start(solver: str) -> asyncio.Future[CheckResult]:
        return asyncio.ensure_future(
            asyncio.to_thread(smt_check, claim, timeout_s=timeout_s, solver=solver, cancel=cancel)
        )

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
    decided = False
    for finished in asyncio.as_completed(list(tasks.values())):
        try:
            result = await finished
        except Exception:
            continue  # reported below as an error result
        if decisive(result):
            decided = True
            if stop:
                cancel.set()
    results = [
        _task_result(tasks[s], started)
        if s in tasks
        else CheckResult(checker=s, verdict="skipped", detail=f"not started: {lead} decided the claim first")
        for s in solvers
    ]
    cut_short = any(r.verdict == "skipped" for r in results) and not decided
    return results, not cut_short and all(r.verdict != "error" for r in results)


def disagreement(results: list[CheckResult]) -> CheckResult | None:
    """An "error" check when a solver proved a claim that a confirmed counterexample refutes."""
    hit = next((r for r in results if is_refutation(r)), None)
    provers = [r.checker for r in results if r.checker in SOLVERS and r.verdict == "passed"]
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
    budget_s: float = 2.0,
    smt_timeout_s: float = 10.0,
    solvers: tuple[str, ...] = SOLVERS,
    portfolio: bool = True,
    cache: ClaimCheckCache | None = None,
) -> list[CheckResult]:
    """Falsifier then each solver's result (that order), plus a disagreement check if any.
    `portfolio=False` is the previous behaviour: every checker runs to its own end."""
    cancel = Cancel()
    canon = canonical_claim(claim)

    async def falsifier_part() -> list[CheckResult]:
        results = await _memo(
            cache, f"falsifier|{seed}|{budget_s!r}|{canon}", lambda: _run_falsifier(claim, seed, budget_s)
        )
        if portfolio and any(is_refutation(r) for r in results):
            cancel.set()
        return results

    async def smt_part() -> list[CheckResult]:
        key = f"smt|{','.join(solvers)}|{smt_timeout_s!r}|{canon}"
        return await _memo(cache, key, lambda: _run_solvers(claim, solvers, smt_timeout_s, cancel, portfolio))

    try:
        first, second = await asyncio.gather(falsifier_part(), smt_part())
    finally:
        cancel.set()  # a cancelled check (Ctrl+C, a tool's time limit) leaves no solver running
    results = [*first, *second]
    note = disagreement(results)
    return [*results, note] if note is not None else results
