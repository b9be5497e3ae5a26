"""SMT reach on transcendental claims (tests/unit/verify/transcendental_table.py): how many
true claims with log, exp, symbolic powers, pi/e and finite sums Z3 (and cvc5 when installed)
proves, and how many false ones it wrongly proves (must be 0). One `name value` figure per line.

    python benchmarks/smt_reach.py [--smt-timeout 3.0] [--solver z3|cvc5|both] [--verbose]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit" / "verify"))

from transcendental_table import FALSE, TRUE  # noqa: E402

from eurekaclaw.verify import smt_check  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smt-timeout", type=float, default=3.0, help="solver timeout per claim (s)")
    parser.add_argument("--solver", default="both", choices=["z3", "cvc5", "both"])
    parser.add_argument("--verbose", action="store_true", help="one line per claim on stderr")
    args = parser.parse_args()
    solvers = ["z3", "cvc5"] if args.solver == "both" else [args.solver]
    solvers = [s for s in solvers if importlib.util.find_spec(s) is not None]
    print(f"claims {len(TRUE) + len(FALSE)} (true {len(TRUE)}, false {len(FALSE)})")
    either: set[str] = set()
    for solver in solvers:
        smt_check(TRUE[0].claim, timeout_s=args.smt_timeout, solver=solver)  # warm the worker pool
        proved_true = proved_false = refuted_false = 0
        started = time.perf_counter()
        for case in TRUE + FALSE:
            result = smt_check(case.claim, timeout_s=args.smt_timeout, solver=solver)
            if args.verbose:
                print(
                    f"{solver} {case.id} {'T' if case.true else 'F'} {result.verdict}: {result.detail[:120]}",
                    file=sys.stderr,
                )
            if result.verdict == "passed":
                if case.true:
                    proved_true += 1
                    either.add(case.id)
                else:
                    proved_false += 1
            elif result.verdict == "failed" and not case.true:
                refuted_false += 1
        seconds = time.perf_counter() - started
        print(f"{solver}_true_claims_proved {proved_true}/{len(TRUE)} = {proved_true / len(TRUE):.3f}")
        print(f"{solver}_false_claims_proved {proved_false}")
        print(f"{solver}_false_claims_refuted {refuted_false}/{len(FALSE)}")
        print(f"{solver}_seconds_per_claim {seconds / (len(TRUE) + len(FALSE)):.3f}")
    if len(solvers) > 1:
        print(f"either_true_claims_proved {len(either)}/{len(TRUE)} = {len(either) / len(TRUE):.3f}")


if __name__ == "__main__":
    main()
