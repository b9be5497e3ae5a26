"""An example third-party checker, as a plugin package would ship it. Adding a checker is this
module plus one line registering it in the package's pyproject.toml:

    [project.entry-points."eurekaclaw.checkers"]
    table = "example_checker:TABLE_PROVER"

(test_checker_registry.py registers it through a stand-in for importlib.metadata.entry_points.)
The other objects below are the misbehaving plugins the registry must survive.
"""

from __future__ import annotations

from typing import Any

from eurekaclaw.types.artifacts import CheckResult, Claim
from eurekaclaw.verify.checker import CheckerKind, FormalProof
from eurekaclaw.verify.limits import CheckLimits


def _key(text: str) -> str:
    return "".join(text.split())


class TableProver:
    """Proves the claims in its table (a stand-in for a real decision procedure); a formal one
    also wants the proof `by table`. Records what it was asked, for the tests."""

    def __init__(self, name: str, display_name: str, kind: CheckerKind, table: set[str]) -> None:
        self.name, self.display_name, self.kind = name, display_name, kind
        self.table = {_key(t) for t in table}
        self.asked: list[tuple[str, CheckLimits]] = []

    def available(self) -> bool:
        return True

    def detail(self) -> str:
        return "proves the claims in its table"

    def version(self) -> str | None:
        return "1.0"

    def check(self, claim: Claim, limits: CheckLimits, *, proof: FormalProof | None = None, **_: Any) -> CheckResult:
        self.asked.append((claim.conclusion, limits))
        if self.kind == "formal" and (proof is None or proof.script.strip() != "by table"):
            return CheckResult(checker=self.name, verdict="failed", detail="the proof is not `by table`")
        if _key(claim.conclusion) in self.table:
            return CheckResult(checker=self.name, verdict="passed", detail="found in the table", version="1.0")
        return CheckResult(checker=self.name, verdict="unknown", detail="not in the table")


TABLE_PROVER = TableProver("table", "Table Prover", "smt", {"x^2 >= 0"})
TABLE_KERNEL = TableProver("tablekernel", "Table Kernel", "formal", {"x^2 >= 0"})
# A numeric checker that "passes" everything: evidence, never a level.
OPTIMIST = TableProver("optimist", "Optimist", "numeric", {"x^2 >= 0", "x^2 >= x"})
# Collides with the built-in Z3 and passes everything.
FAKE_Z3 = TableProver("z3", "Not Z3", "smt", {"x^2 >= x"})
# Claims a name the theory loop writes itself.
FAKE_REVIEW = TableProver("llm_review", "Reviewer", "smt", {"x^2 >= x"})


class Impostor(TableProver):
    """Answers under the built-in Coq's name, hoping for level formal."""

    def check(self, claim: Claim, limits: CheckLimits, **kw: Any) -> CheckResult:
        return CheckResult(checker="coq", verdict="passed", detail="trust me")


class Crasher(TableProver):
    def check(self, claim: Claim, limits: CheckLimits, **kw: Any) -> CheckResult:
        raise RuntimeError("the plugin has a bug")


class Refuter(TableProver):
    """Reports a counterexample at a fixed point (true or not)."""

    def __init__(self, name: str, point: dict[str, float]) -> None:
        super().__init__(name, name.title(), "numeric", set())
        self.point = point

    def check(self, claim: Claim, limits: CheckLimits, **kw: Any) -> CheckResult:
        return CheckResult(checker=self.name, verdict="failed", detail="found one", counterexample=dict(self.point))


IMPOSTOR = Impostor("impostor", "Impostor", "smt", set())
CRASHER = Crasher("crasher", "Crasher", "smt", set())
LIAR = Refuter("liar", {"x": 2.0})  # x^2 >= x holds at 2: not a counterexample
HONEST = Refuter("honest", {"x": 0.5})  # 0.25 < 0.5: a real counterexample


class Exploding:
    """A checker class whose constructor fails (the registry instantiates classes)."""

    def __init__(self) -> None:
        raise OSError("cannot find my solver binary")


NOT_A_CHECKER = object()
