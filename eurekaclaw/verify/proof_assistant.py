"""ProofAssistant: one checker class for every proof assistant; Coq and Lean are two instances.

The skeleton is shared (formal.py holds the machinery it runs):

1. the model's answer is taken apart into helpers and a tactic script (a whole-file answer is
   split; its own statement is never used);
2. text refused outright is refused before the tool is looked for;
3. the tool must be able to run here (else "no_checker", or "error" for a broken setup);
4. refusals that need the installation (Coq's Require allow-list) are applied;
5. the statement is generated from THE CLAIM (the model writes only the proof);
6. refusals that are checked once the statement exists (Lean's scan);
7. statement, proof and gate files are compiled (in the sandbox where the prover says so), and
   the axiom report must name nothing outside the allow-list.

A ProofSystem says what differs: the parsing, the refusals at each step, the statement
generator, the files and the Prover (formal.py). The order of the steps is the order each
checker had when it was written alone, so every verdict is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from eurekaclaw.types.artifacts import CheckResult, CheckVerdict, Claim
from eurekaclaw.verify.checker import CheckerKind, FormalProof, Requirement, missing
from eurekaclaw.verify.formal import MAX_DETAIL_CHARS, ClaimFiles, ProofRejected, Prover, check_claim_proof

if TYPE_CHECKING:
    from eurekaclaw.line_worker import Cancel
    from eurekaclaw.verify.limits import CheckLimits


@dataclass(frozen=True)
class Answer:
    """The model's proof taken apart: helpers, the tactic script, and how it was taken apart
    (added to the verdict's detail; "" when the answer was used as given)."""

    helpers: str
    script: str
    note: str = ""


Refusals = Callable[[Answer], list[str]]


def no_refusals(answer: Answer) -> list[str]:
    return []


@dataclass(frozen=True)
class ProofSystem:
    """What one proof assistant does differently. The callables raise ProofRejected to stop
    the check with a verdict."""

    name: str  # the checker's name, e.g. "coq"
    display_name: str  # e.g. "Coq"
    language: str  # for messages: "the claim has no <language> translation"
    requirements: tuple[Requirement, ...]
    purpose: str  # doctor's detail when available
    install: str  # doctor's detail when not
    allowed_axioms: frozenset[str]
    version: Callable[[], str | None]
    take_apart: Callable[[str, str], Answer]  # (script, helpers) -> Answer
    runnable: Callable[[CheckLimits], None]  # ProofRejected("no_checker"/"error") when it cannot run
    statement: Callable[[Claim, Answer], str]  # the statement generated from the claim
    files: Callable[[str, Answer], ClaimFiles]  # (statement, answer) -> the three files
    prover: Callable[[CheckLimits], Prover]
    text_refusals: Refusals = no_refusals  # before the tool is looked for
    installed_refusals: Refusals = no_refusals  # need the installation
    statement_refusals: Refusals = no_refusals  # once the statement exists
    order: int = 50


def _refuse(hits: list[str]) -> None:
    if hits:
        raise ProofRejected("failed", "rejected before compiling: " + ", ".join(hits))


@dataclass(repr=False)
class ProofAssistant:
    """A formal checker (the Checker protocol, checker.py) built from a ProofSystem."""

    system: ProofSystem
    kind: CheckerKind = field(default="formal", init=False)

    def __repr__(self) -> str:
        return f"ProofAssistant({self.name!r})"

    @property
    def name(self) -> str:
        return self.system.name

    @property
    def display_name(self) -> str:
        return self.system.display_name

    @property
    def order(self) -> int:
        return self.system.order

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        return self.system.requirements

    def available(self) -> bool:
        return not missing(self.system.requirements)

    def detail(self) -> str:
        if not self.available():
            return self.system.install
        return f"{self.system.purpose}; allowed axioms: {', '.join(sorted(self.system.allowed_axioms))}"

    def version(self) -> str | None:
        return self.system.version()

    def result(self, verdict: CheckVerdict, detail: str) -> CheckResult:
        return CheckResult(checker=self.name, verdict=verdict, detail=detail, version=self.version())

    def check(
        self,
        claim: Claim,
        limits: CheckLimits,
        *,
        seed: int = 0,
        proof: FormalProof | None = None,
        cancel: Cancel | None = None,
    ) -> CheckResult:
        if proof is None or not proof.script.strip():
            return self.result("skipped", "no formal proof to check")
        return self.check_proof(claim, proof, limits)

    def check_proof(self, claim: Claim, proof: FormalProof, limits: CheckLimits) -> CheckResult:
        """passed only if the tool proves the statement generated from `claim` with the proof,
        using no axiom outside the allow-list (the module doc lists the steps)."""
        system = self.system
        try:
            answer = system.take_apart(proof.script, proof.helpers)
            _refuse(system.text_refusals(answer))
            system.runnable(limits)
            _refuse(system.installed_refusals(answer))
            statement = system.statement(claim, answer)
            _refuse(system.statement_refusals(answer))
            prover = system.prover(limits)
        except ProofRejected as exc:
            return self.result(exc.verdict, exc.detail)
        result = check_claim_proof(prover, system.files(statement, answer), timeout_s=limits.formal_timeout_s)
        if answer.note:
            result = result.model_copy(update={"detail": f"{result.detail}\n({answer.note})"[:MAX_DETAIL_CHARS]})
        return result
