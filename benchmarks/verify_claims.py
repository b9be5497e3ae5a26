"""Mechanical checkers on the verification test table (tests/unit/verify/claim_table.py):
claims checked per second by the numeric falsifier and by Z3, and how many false claims each
catches with a confirmed counterexample. Prints one `name value` figure per line.

    python benchmarks/verify_claims.py [--budget 2.0] [--smt-timeout 3.0] [--seed 0]

The falsifier runs with its default sample count and the given time budget per claim; Z3 runs
in the pooled worker subprocess (one warm-up call first, so worker start-up is not counted).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit" / "verify"))

from claim_table import CASES, FALSE_CASES, TRUE_CASES  # noqa: E402

from eurekaclaw.verify import falsify, smt_check  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=2.0, help="falsifier time budget per claim (s)")
    parser.add_argument("--smt-timeout", type=float, default=3.0, help="Z3 timeout per claim (s)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    caught_f: set[str] = set()
    false_alarm_f = 0
    started = time.perf_counter()
    for case in CASES:
        report = falsify(case.claim, seed=args.seed, budget_s=args.budget)
        if report.confirmed:
            if case.true:
                false_alarm_f += 1
            else:
                caught_f.add(case.id)
    falsifier_s = time.perf_counter() - started

    smt_check(CASES[0].claim, timeout_s=args.smt_timeout)  # warm the worker pool
    caught_z: set[str] = set()
    proved_true = 0
    false_alarm_z = 0
    proved_false = 0
    started = time.perf_counter()
    for case in CASES:
        result = smt_check(case.claim, timeout_s=args.smt_timeout)
        if result.verdict == "passed":
            proved_true += case.true
            proved_false += not case.true
        if result.counterexample is not None:
            if case.true:
                false_alarm_z += 1
            else:
                caught_z.add(case.id)
    z3_s = time.perf_counter() - started

    n_false = len(FALSE_CASES)
    print(f"claims {len(CASES)} (true {len(TRUE_CASES)}, false {n_false})")
    print(f"falsifier_claims_per_s {len(CASES) / falsifier_s:.2f}")
    print(f"z3_claims_per_s {len(CASES) / z3_s:.2f}")
    print(f"falsifier_false_claim_catch_rate {len(caught_f) / n_false:.3f}")
    print(f"z3_false_claim_catch_rate {len(caught_z) / n_false:.3f}")
    print(f"combined_false_claim_catch_rate {len(caught_f | caught_z) / n_false:.3f}")
    print(f"z3_true_claims_proved {proved_true / len(TRUE_CASES):.3f}")
    print(f"true_claims_wrongly_refuted {false_alarm_f + false_alarm_z}")
    print(f"false_claims_proved_by_z3 {proved_false}")


if __name__ == "__main__":
    main()
