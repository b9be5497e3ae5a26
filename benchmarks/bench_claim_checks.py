"""Claim checks side by side: the previous behaviour (falsifier, Z3 and cvc5 all awaited) and the
portfolio (the first decisive answer stops the other solver), on the verification claim table
(tests/unit/verify/claim_table.py, or --table transcendental). For each claim both run one
after the other through `run_mechanical_checks` with the session defaults (falsifier budget
2 s, SMT time-out 10 s); the verdict compared is what the theory loop reads: refuted, proved
at level smt, or open. Then the whole table once more inside one `claim_check_session()`, twice,
to show the session cache. Prints `name value` lines, then every claim whose verdict differs.

    python benchmarks/bench_claim_checks.py [--table claims|transcendental] [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit" / "verify"))

from eurekaclaw.config import load_settings  # noqa: E402
from eurekaclaw.types.artifacts import CheckResult, Claim  # noqa: E402
from eurekaclaw.verify import mechanical_level, refuted, run_mechanical_checks  # noqa: E402
from eurekaclaw.verify.portfolio import claim_check_session  # noqa: E402


def table(name: str) -> list[tuple[str, Claim]]:
    if name == "transcendental":
        import transcendental_table as tt

        return [(c.id, c.claim) for c in [*tt.TRUE, *tt.FALSE]]
    from claim_table import CASES

    return [(c.id, c.claim) for c in CASES]


def verdict(checks: list[CheckResult]) -> str:
    if refuted(checks) is not None:
        return "refuted"
    return mechanical_level(checks) or "open"


async def timed(claim: Claim, settings: object, portfolio: bool) -> tuple[float, str, list[CheckResult]]:
    started = time.perf_counter()
    checks = await run_mechanical_checks(claim, settings=settings, portfolio=portfolio)
    return time.perf_counter() - started, verdict(checks), checks


def stats(name: str, seconds: list[float]) -> None:
    print(f"{name}_mean_s {statistics.fmean(seconds):.3f}")
    print(f"{name}_median_s {statistics.median(seconds):.3f}")
    print(f"{name}_max_s {max(seconds):.3f}")
    print(f"{name}_total_s {sum(seconds):.1f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--table", choices=("claims", "transcendental"), default="claims")
    parser.add_argument("--limit", type=int, default=0, help="only the first N claims")
    parser.add_argument("--budget", type=float, default=2.0, help="falsifier budget (s)")
    parser.add_argument("--smt-timeout", type=float, default=10.0, help="SMT time-out (s)")
    args = parser.parse_args()
    settings = load_settings(falsifier_budget_s=args.budget, smt_timeout_s=args.smt_timeout)
    cases = table(args.table)[: args.limit or None]
    print(f"claims {len(cases)}; cvc5 {'installed' if importlib.util.find_spec('cvc5') else 'absent'}")
    await timed(cases[0][1], settings, portfolio=False)  # warm the worker pool and the imports

    wait_all: list[float] = []
    portfolio: list[float] = []
    differ: list[str] = []
    slow: list[str] = []
    decided: list[int] = []  # claims some checker decides (refuted, or proved by a solver)
    for i, (cid, claim) in enumerate(cases):
        # alternate which goes first, so that neither always meets a warmer pool
        order = (False, True) if i % 2 == 0 else (True, False)
        runs = {p: await timed(claim, settings, p) for p in order}
        wait_all.append(runs[False][0])
        portfolio.append(runs[True][0])
        if runs[False][1] != "open":
            decided.append(i)
        if runs[True][0] > 1:
            rows = ", ".join(f"{c.checker} {c.verdict} {c.seconds}s" for c in runs[True][2])
            slow.append(f"{cid} {runs[True][0]:.2f}s ({rows})")
        if runs[False][1] != runs[True][1]:
            differ.append(f"{cid}: wait-all {runs[False][1]}, portfolio {runs[True][1]}")
    stats("wait_all", wait_all)
    stats("portfolio", portfolio)
    print(f"decided_claims {len(decided)} (refuted, or proved by a solver); undecided {len(cases) - len(decided)}")
    stats("wait_all_decided", [wait_all[i] for i in decided])
    stats("portfolio_decided", [portfolio[i] for i in decided])
    print(f"claims_over_1s wait_all {sum(s > 1 for s in wait_all)} portfolio {sum(s > 1 for s in portfolio)}")
    print(f"verdict_changes {len(differ)}")

    with claim_check_session() as cache:
        started = time.perf_counter()
        for _, claim in cases:
            await run_mechanical_checks(claim, settings=settings)
        first = time.perf_counter() - started
        hits_after_first = cache.hits
        started = time.perf_counter()
        for _, claim in cases:
            await run_mechanical_checks(claim, settings=settings)
        second = time.perf_counter() - started
    print(f"session_first_pass_total_s {first:.1f}")
    # a refuted claim's solvers are never remembered (they were stopped), but they are not
    # started again either: the remembered counterexample stops them at once
    print(f"session_second_pass_total_s {second:.2f} (parts remembered: {cache.hits - hits_after_first})")
    for line in differ:
        print("DIFFERS", line)
    for line in slow:
        print("SLOW (portfolio)", line)


if __name__ == "__main__":
    asyncio.run(main())
