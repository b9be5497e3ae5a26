"""The claim-check portfolio (verify/portfolio.py): the first decisive answer stops the other
solver (its worker process is killed), `unknown` waits for the other solver, a proof never
stops the falsifier (a refutation still wins, and the disagreement is reported), and identical
claims are checked once per session."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from test_line_worker import HERE, gone, wait_for
from toolreq import require_module

from eurekaclaw.config import load_settings
from eurekaclaw.line_worker import Cancel, WorkerPool
from eurekaclaw.types.artifacts import CheckResult, Claim, ClaimVariable
from eurekaclaw.verify import mechanical_level, refuted, run_mechanical_checks
from eurekaclaw.verify import portfolio as pf
from eurekaclaw.verify.portfolio import CACHED_NOTE, canonical_claim, check_claim, claim_check_session, session_cache

AMGM = Claim(
    variables=[ClaimVariable(name="a", domain="positive"), ClaimVariable(name="b", domain="positive")],
    conclusion="(a + b)/2 >= sqrt(a*b)",
)
FALSE = Claim(variables=[ClaimVariable(name="x")], conclusion="x^2 >= x")


class SlowSolver:
    """A stand-in for a solver that never answers: a real worker process (slow_line_worker.py)
    that the portfolio's Cancel has to kill. Records the pids it ran."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        monkeypatch.setenv("PYTHONPATH", str(HERE))
        self.pool = WorkerPool("slow_line_worker", "slow-line-worker-ready", "the slow solver")
        self.pidfile = tmp_path / "slow.json"
        self.replies: list[dict[str, Any]] = []

    def check(self, claim: Claim, *, timeout_s: float, solver: str, cancel: Cancel | None) -> CheckResult:
        reply = self.pool.request({"pidfile": str(self.pidfile)}, 3600.0, cancel)
        self.replies.append(reply)
        verdict = "skipped" if reply.get("status") == "cancelled" else "unknown"
        return CheckResult(checker=solver, verdict=verdict, detail=str(reply))

    def pids(self) -> list[int]:
        return json.loads(self.pidfile.read_text()) if self.pidfile.exists() and self.pidfile.read_text() else []


def fake_solvers(monkeypatch: pytest.MonkeyPatch, **by_solver: Any) -> dict[str, int]:
    """Replace smt_check: each solver's answer is a CheckResult or a callable; counts the calls."""
    calls: dict[str, int] = {}

    def smt_check(claim: Claim, *, timeout_s: float, solver: str, cancel: Cancel | None = None) -> CheckResult:
        calls[solver] = calls.get(solver, 0) + 1
        answer = by_solver[solver]
        if callable(answer):
            return answer(claim, timeout_s=timeout_s, solver=solver, cancel=cancel)
        return answer.model_copy()

    monkeypatch.setattr(pf, "smt_check", smt_check)
    return calls


def proved(solver: str) -> CheckResult:
    return CheckResult(checker=solver, verdict="passed", detail=f"{solver} proved it")


async def test_a_proof_kills_the_slow_solver(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Z3 proves the claim while cvc5 (a worker that never answers) is running: cvc5's worker
    and its child are killed, not left running."""
    require_module("z3")
    slow = SlowSolver(monkeypatch, tmp_path)
    real_smt_check = pf.smt_check

    def z3_after_cvc5_started(claim: Claim, **kw: Any) -> CheckResult:
        wait_for(lambda: bool(slow.pids()), "the slow solver to take its request")
        return real_smt_check(claim, **kw)

    monkeypatch.setattr(pf, "HEAD_START_S", 0.0)
    fake_solvers(monkeypatch, z3=z3_after_cvc5_started, cvc5=slow.check)
    try:
        checks = await check_claim(AMGM, budget_s=0.5, smt_timeout_s=30.0, solvers=("z3", "cvc5"))
    finally:
        slow.pool.close()
    by = {c.checker: c for c in checks}
    assert by["z3"].verdict == "passed" and by["cvc5"].verdict == "skipped"
    assert by["falsifier"].verdict == "passed"  # the falsifier ran to its end all the same
    assert slow.replies == [
        {"status": "cancelled", "reason": "the slow solver was stopped: another check decided first"}
    ]
    worker, child = slow.pids()
    assert gone(worker)
    wait_for(lambda: gone(child), "the slow solver's child to die")
    assert mechanical_level(checks) == "smt" and refuted(checks) is None


async def test_a_quick_proof_never_starts_the_second_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """Z3 decides within its head start: cvc5 is not started at all (no worker to kill)."""
    monkeypatch.setattr(pf, "HEAD_START_S", 3600.0)
    calls = fake_solvers(monkeypatch, z3=proved("z3"), cvc5=proved("cvc5"))
    checks = await check_claim(AMGM, budget_s=0.3, solvers=("z3", "cvc5"))
    assert calls == {"z3": 1}
    cvc5 = next(c for c in checks if c.checker == "cvc5")
    assert cvc5.verdict == "skipped" and "not started: z3 decided" in cvc5.detail


async def test_a_falsifier_refutation_kills_the_solvers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    slow = SlowSolver(monkeypatch, tmp_path)
    fake_solvers(monkeypatch, z3=slow.check, cvc5=slow.check)
    try:
        checks = await check_claim(FALSE, budget_s=1.0, smt_timeout_s=30.0, solvers=("z3", "cvc5"))
    finally:
        slow.pool.close()
    assert refuted(checks) is not None and refuted(checks).checker == "falsifier"
    assert [c.verdict for c in checks if c.checker in ("z3", "cvc5")] == ["skipped", "skipped"]
    assert len(slow.replies) == 2 and all(r["status"] == "cancelled" for r in slow.replies)
    assert all(gone(pid) for pid in slow.pids())  # if a worker got as far as the request


async def test_unknown_waits_for_the_other_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """z3 gives up at once; cvc5's later proof still counts (nothing is cancelled by `unknown`)."""
    released = threading.Event()

    def z3(claim: Claim, **kw: Any) -> CheckResult:
        released.set()
        return CheckResult(checker="z3", verdict="unknown", detail="timeout")

    def cvc5(claim: Claim, *, cancel: Cancel | None, **kw: Any) -> CheckResult:
        released.wait(60)  # answers only after z3 said unknown
        assert cancel is not None and not cancel.is_set()
        return proved("cvc5")

    fake_solvers(monkeypatch, z3=z3, cvc5=cvc5)
    checks = await check_claim(AMGM, budget_s=0.3, solvers=("z3", "cvc5"))
    assert [(c.checker, c.verdict) for c in checks] == [("falsifier", "passed"), ("z3", "unknown"), ("cvc5", "passed")]
    assert mechanical_level(checks) == "smt"


async def test_after_a_give_up_the_other_solver_gets_the_second_opinion_window(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """z3 gives up; cvc5 (a worker that never answers) is stopped once SMT_SECOND_OPINION_S has
    passed instead of running to the whole SMT time-out: its worker is killed, its result says
    why, and the part is remembered (the window is a rule, not an accident)."""
    slow = SlowSolver(monkeypatch, tmp_path)
    fake_solvers(monkeypatch, z3=CheckResult(checker="z3", verdict="unknown", detail="incomplete"), cvc5=slow.check)
    settings = load_settings(smt_timeout_s=3600.0, smt_second_opinion_s=0.2, falsifier_budget_s=0.3)
    try:
        with claim_check_session() as cache:
            checks = await run_mechanical_checks(AMGM, settings=settings)
            assert session_cache() is cache
            again = await run_mechanical_checks(AMGM, settings=settings)
    finally:
        slow.pool.close()
    by = {c.checker: c for c in checks}
    assert by["z3"].verdict == "unknown"
    assert by["cvc5"].verdict == "skipped" and "SMT_SECOND_OPINION_S" in by["cvc5"].detail
    assert slow.replies and slow.replies[0]["status"] == "cancelled"
    assert all(gone(pid) for pid in slow.pids()[:1])
    assert mechanical_level(checks) is None and refuted(checks) is None
    assert len(slow.replies) == 1, "the second check of the same claim came from the session memo"
    assert [c.verdict for c in again if c.checker in ("z3", "cvc5")] == ["unknown", "skipped"]


async def test_disagreement_keeps_the_refutation(monkeypatch: pytest.MonkeyPatch) -> None:
    """A solver "proves" a false claim (a translation bug): the proof ends the SMT part, but the
    falsifier still runs to its end, its counterexample wins and the disagreement is shown."""
    fake_solvers(monkeypatch, z3=proved("z3"), cvc5=proved("cvc5"))
    checks = await check_claim(FALSE, budget_s=1.0, smt_timeout_s=30.0, solvers=("z3", "cvc5"))
    hit = refuted(checks)
    assert hit is not None and hit.checker == "falsifier" and 0 < hit.counterexample["x"] < 1
    assert mechanical_level(checks) is None
    note = checks[-1]
    assert note.checker == "mechanical" and note.verdict == "error" and "disagree" in note.detail
    assert "z3 proved the claim" in note.detail


async def test_wait_for_all_is_the_previous_behaviour(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def cvc5(claim: Claim, *, cancel: Cancel | None, **kw: Any) -> CheckResult:
        seen.append(cancel is not None and cancel.is_set())
        return CheckResult(checker="cvc5", verdict="unknown", detail="gave up")

    fake_solvers(monkeypatch, z3=proved("z3"), cvc5=cvc5)
    checks = await check_claim(AMGM, budget_s=0.3, solvers=("z3", "cvc5"), portfolio=False)
    assert [c.verdict for c in checks] == ["passed", "passed", "unknown"] and seen == [False]


async def test_identical_claims_are_checked_once_per_session(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_solvers(monkeypatch, z3=proved("z3"), cvc5=proved("cvc5"))
    falsified: list[int] = []
    real = pf._falsify
    monkeypatch.setattr(pf, "_falsify", lambda claim, seed, budget: falsified.append(seed) or real(claim, seed, budget))
    spaced = AMGM.model_copy(update={"conclusion": "( a+b ) / 2>=sqrt( a * b )", "variables": AMGM.variables[::-1]})
    assert canonical_claim(spaced) == canonical_claim(AMGM)
    settings = load_settings(falsifier_budget_s=0.3)
    assert session_cache() is None
    with claim_check_session() as cache:
        first = await run_mechanical_checks(AMGM, settings=settings)
        again = await run_mechanical_checks(spaced, settings=settings)  # picks up the session's cache
        other_seed = await run_mechanical_checks(AMGM, settings=settings, seed=7)
    assert session_cache() is None  # the cache ends with its session
    assert calls == {"z3": 1}  # the solvers ran once for the three checks (cvc5: z3 decided first)
    assert falsified == [0, 7]  # a new seed is new evidence for the falsifier, a repeat is not
    assert [c.verdict for c in again] == [c.verdict for c in first]
    assert [c.checker for c in again][:2] == ["falsifier", "z3"]
    assert all(c.detail.endswith(CACHED_NOTE) for c in again[:2])
    assert mechanical_level(other_seed) == "smt" and cache.hits == 3
    with claim_check_session():
        await pf.check_claim(AMGM, budget_s=0.3, solvers=("z3", "cvc5"), cache=session_cache())
    assert calls == {"z3": 2}  # another session checks for itself


async def test_errors_and_cut_short_parts_are_not_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_solvers(monkeypatch, z3=CheckResult(checker="z3", verdict="error", detail="worker died"))
    with claim_check_session() as cache:
        for _ in range(2):
            await check_claim(AMGM, budget_s=0.3, solvers=("z3",), cache=cache)
        assert calls == {"z3": 2}
        calls = fake_solvers(monkeypatch, z3=CheckResult(checker="z3", verdict="skipped", detail="stopped"))
        await check_claim(FALSE, budget_s=1.0, solvers=("z3",), cache=cache)  # the falsifier refutes it
        checks = await check_claim(FALSE, budget_s=1.0, solvers=("z3",), cache=cache)
    assert calls == {"z3": 2}  # stopped by the falsifier: that says nothing the next check could reuse
    hit = refuted(checks)
    assert hit is not None and hit.checker == "falsifier" and hit.detail.endswith(CACHED_NOTE)


def test_canonical_claim_keeps_what_matters() -> None:
    base = canonical_claim(AMGM)
    reals = AMGM.model_copy(update={"variables": [ClaimVariable(name="a"), ClaimVariable(name="b")]})
    assert canonical_claim(reals) != base
    assert canonical_claim(AMGM.model_copy(update={"conclusion": "(a + b)/2 > sqrt(a*b)"})) != base
    two = Claim(variables=[ClaimVariable(name="ab")], conclusion="ab > 0")
    spaced = Claim(variables=[ClaimVariable(name="ab")], conclusion="a b > 0")
    assert canonical_claim(two) != canonical_claim(spaced)
    swapped = Claim(variables=[ClaimVariable(name="x")], assumptions=["x > 1", "x < 3", "x > 1"], conclusion="x > 0")
    ordered = Claim(variables=[ClaimVariable(name="x")], assumptions=["x < 3", "x>1"], conclusion="x > 0")
    assert canonical_claim(swapped) == canonical_claim(ordered)


async def test_a_cancelled_check_leaves_no_solver_running(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Ctrl+C or a tool's time limit cancels the check: the solver worker is killed with it."""
    import asyncio

    slow = SlowSolver(monkeypatch, tmp_path)
    fake_solvers(monkeypatch, z3=slow.check)
    task = asyncio.ensure_future(check_claim(AMGM, budget_s=0.3, smt_timeout_s=3600.0, solvers=("z3",)))
    try:
        await asyncio.to_thread(wait_for, lambda: bool(slow.pids()), "the solver to take its request")
        worker, child = slow.pids()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.to_thread(wait_for, lambda: gone(worker) and gone(child), "the solver to die")
    finally:
        slow.pool.close()
