"""The Checker protocol: what a verification backend is to EurekaClaw (registry.py lists them).

A checker has an internal `name` (the `checker` of every CheckResult it returns, e.g. "z3"), a
`display_name` for readers ("Z3"), a `kind` and four methods:

- `available() -> bool`: whether it can run on this machine (local probes only, no network);
- `detail() -> str`: one line for `eurekaclaw doctor`: what it checks when available, how to
  install it when not;
- `version() -> str | None`;
- `check(claim, limits, *, seed=0, proof=None, cancel=None) -> CheckResult`: check one claim
  (synchronous; it runs in a worker thread). `proof` is given to formal checkers only: the
  model's proof, to be checked against a statement the checker generates from the claim.
  `cancel`, when given, is set once another checker decided the claim: a long check may stop.

The kind says what a "passed" may be worth (DESIGN §3, "Verification levels"): a "formal"
checker's pass can make a lemma's level `formal`, an "smt" checker's `smt`; a "numeric" checker
is evidence only and never gives a level. A "failed" with a counterexample refutes the claim
only after the exact re-check (exact.py) confirmed the point.

Optional: `requirements` (tuples of Requirement, shown in doctor's tool table) and `order`
(lower first; within "smt" the first available solver leads the portfolio).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, get_args, runtime_checkable

if TYPE_CHECKING:
    from eurekaclaw.line_worker import Cancel
    from eurekaclaw.types.artifacts import CheckResult, Claim
    from eurekaclaw.verify.limits import CheckLimits

CheckerKind = Literal["numeric", "smt", "formal"]
KINDS: tuple[CheckerKind, ...] = get_args(CheckerKind)
LEVEL_KINDS: tuple[CheckerKind, ...] = ("formal", "smt")  # the kinds whose pass can be a level
DEFAULT_ORDER = 100


@dataclass(frozen=True)
class FormalProof:
    """A model's proof for a formal checker: the tactic script and optional helper lemmas."""

    script: str
    helpers: str = ""


@runtime_checkable
class Checker(Protocol):
    # Read-only properties: a plain class attribute satisfies them as well.
    @property
    def name(self) -> str: ...

    @property
    def display_name(self) -> str: ...

    @property
    def kind(self) -> CheckerKind: ...

    def available(self) -> bool: ...

    def detail(self) -> str: ...

    def version(self) -> str | None: ...

    def check(
        self,
        claim: Claim,
        limits: CheckLimits,
        *,
        seed: int = 0,
        proof: FormalProof | None = None,
        cancel: Cancel | None = None,
    ) -> CheckResult: ...


@dataclass(frozen=True)
class Requirement:
    """A program or Python module a checker needs (`needed`) or can use, for doctor's table."""

    name: str  # the executable or the importable module
    purpose: str
    module: bool = False  # a Python module (else an executable on PATH)
    dist: str = ""  # the distribution that provides the module, for its version
    needed: bool = True

    def found(self) -> bool:
        if self.module:
            return importlib.util.find_spec(self.name) is not None
        return shutil.which(self.name) is not None

    def dist_version(self) -> str | None:
        """The installed distribution's version (modules only; executables: None)."""
        if not self.module:
            return None
        try:
            return importlib.metadata.version(self.dist or self.name)
        except importlib.metadata.PackageNotFoundError:
            return None


def missing(requirements: tuple[Requirement, ...]) -> list[str]:
    """The needed requirements that are not found."""
    return [r.name for r in requirements if r.needed and not r.found()]
