"""The built-in numeric falsifier and SMT solvers as checkers (the Checker protocol, checker.py).

They are registered in pyproject.toml under the entry-point group `eurekaclaw.checkers`, like
any third-party checker (Coq and Lean are in coq.py and lean.py). The heavy modules (sympy,
numpy, the solver worker) are imported when a check runs, not when the registry loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from eurekaclaw.verify.checker import FormalProof, Requirement, missing

if TYPE_CHECKING:
    from eurekaclaw.line_worker import Cancel
    from eurekaclaw.types.artifacts import CheckResult, Claim
    from eurekaclaw.verify.limits import CheckLimits


class Falsifier:
    """Numeric counterexample search (falsifier.py): evidence only, never a level."""

    name = "falsifier"
    display_name = "numeric falsifier"
    kind: Literal["numeric"] = "numeric"
    order = 0
    requirements = (
        Requirement("sympy", "claim language", module=True),
        Requirement("numpy", "numeric falsifier and simulators", module=True),
        Requirement("scipy", "numeric falsifier (local optimisation)", module=True),
    )

    def available(self) -> bool:
        return not missing(self.requirements)

    def detail(self) -> str:
        gone = missing(self.requirements)
        return f"missing: {', '.join(gone)}" if gone else "numeric counterexample search (evidence only, never a proof)"

    def version(self) -> str | None:
        found = [(r.name, r.dist_version()) for r in self.requirements]
        return ", ".join(f"{name} {v}" for name, v in found if v) or None

    def check(
        self,
        claim: Claim,
        limits: CheckLimits,
        *,
        seed: int = 0,
        proof: FormalProof | None = None,
        cancel: Cancel | None = None,
    ) -> CheckResult:
        from eurekaclaw.verify.falsifier import falsify

        return falsify(claim, seed=seed, budget_s=limits.falsifier_budget_s).to_check_result()


@dataclass(frozen=True)
class SmtSolver:
    """An SMT solver run through the solver worker pool (smt.py): a proof of the claim (unsat of
    its negation) is level smt; a model counts only once exact.py confirmed it."""

    name: str
    display_name: str
    dist: str
    purpose: str
    install: str
    order: int
    kind: Literal["smt"] = "smt"

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        return (Requirement(self.name, self.purpose, module=True, dist=self.dist),)

    def available(self) -> bool:
        return not missing(self.requirements)

    def detail(self) -> str:
        return self.purpose if self.available() else self.install

    def version(self) -> str | None:
        return self.requirements[0].dist_version() if self.available() else None

    def check(
        self,
        claim: Claim,
        limits: CheckLimits,
        *,
        seed: int = 0,
        proof: FormalProof | None = None,
        cancel: Cancel | None = None,
    ) -> CheckResult:
        from eurekaclaw.verify.smt import smt_check

        return smt_check(claim, timeout_s=limits.smt_timeout_s, solver=self.name, cancel=cancel)


FALSIFIER = Falsifier()
Z3 = SmtSolver(
    name="z3",
    display_name="Z3",
    dist="z3-solver",
    purpose="SMT proofs of claims (level smt)",
    install="pip install z3-solver (extra: smt)",
    order=0,
)
CVC5 = SmtSolver(
    name="cvc5",
    display_name="cvc5",
    dist="cvc5",
    purpose="optional second SMT opinion",
    install="optional second SMT opinion (pip install cvc5)",
    order=1,
)
