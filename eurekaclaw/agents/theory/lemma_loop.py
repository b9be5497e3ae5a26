"""The per-lemma loop, at most THEORY_MAX_ITERATIONS attempts:

    (claim checked by machine first) -> prove / repair -> mechanical checks -> independent
    review -> record the proof, or record the failure, search for a counterexample, and repair
    (targeted; broad after STAGNATION_WINDOW failures of one category: a new approach or a
    split into sub-lemmas).

A lemma is recorded as proven only when the review passed and no mechanical check of its claim
failed; a proof citing itself, the main theorem or a lemma that relies on it is circular and a
failed attempt. A formal proof is optional evidence: coqc's rejection is fed back once, then the
formal proof is dropped with a note (formal_attempt.py), never failing the lemma. Its
level is decided in level.py (formal/smt only when a checker proved its claim AND its statement is
that claim); else "reviewed" (or "unverified" when the reviewer's word does not
count), with the claim's check kept as supporting evidence. Who reviewed is recorded, and a
review by the model that wrote the proof is a self-review. A confirmed counterexample refutes
the lemma — also one found earlier in the session for another lemma. Unreadable replies are
failed attempts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from eurekaclaw.agents.formalize.surgery import insert_split
from eurekaclaw.agents.theory.citations import verified_paper
from eurekaclaw.agents.theory.costs import repair_purpose
from eurekaclaw.agents.theory.counterexample import CounterexampleSearcher, from_check
from eurekaclaw.agents.theory.formal_attempt import (
    check_formal,
    close_formal,
    formal_allowed,
    rejected,
    settle_rejected,
    without_formal_failures,
)
from eurekaclaw.agents.theory.lemma_use import circular_citations, circular_text
from eurekaclaw.agents.theory.level import ReviewEvidence, decide_level
from eurekaclaw.agents.theory.mechanical import (
    confirmed_refutation,
    failed_checks,
    run_checks,
    stored_refutation,
)
from eurekaclaw.agents.theory.models import ProofAttempt, ReviewVerdict
from eurekaclaw.agents.theory.prover import Prover, Refiner
from eurekaclaw.agents.theory.refutation import refute
from eurekaclaw.agents.theory.run import TheoryRun
from eurekaclaw.agents.theory.substance import restates_claim
from eurekaclaw.agents.theory.verifier import Verifier, review_category, review_passed, review_text
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.llm.context import current_lemma
from eurekaclaw.types.artifacts import (
    CheckResult,
    Counterexample,
    FailedAttempt,
    Paper,
    ProofRecord,
)

LemmaOutcome = Literal["proved", "failed", "split", "refuted", "root_refuted"]

MAX_SPLIT_DEPTH = 2  # a sub-lemma of a sub-lemma may not split again
MAX_LEMMAS = 60


def stagnant(failures: list[FailedAttempt], window: int) -> bool:
    """The last `window` failures (and every further multiple) share one error category."""
    if not failures or failures[-1].error_category == "unparseable":
        return False
    last = failures[-1].error_category
    run = 0
    for f in reversed(failures):
        if f.error_category != last:
            break
        run += 1
    return run >= window and run % window == 0


def last_real_failure(failures: list[FailedAttempt]) -> FailedAttempt:
    for f in reversed(failures):
        if f.error_category != "unparseable":
            return f
    return failures[-1]


class _Unusable(Exception):
    """A broad repair that gave neither a valid split nor a new proof."""


@dataclass
class _Attempts:
    """The state one lemma's attempts share: the current proof and how many attempts are used."""

    lid: str
    claim_checks: list[CheckResult]
    prover: Prover
    refiner: Refiner
    verifier: Verifier
    searcher: CounterexampleSearcher
    candidate: ProofAttempt | None = None
    reverify: bool = False  # the last review was unreadable: review the same proof again
    checks: list[CheckResult] | None = None  # the current proof's checks (kept for a re-review)
    used: int = 0


class LemmaWorker:
    def __init__(self, run: TheoryRun) -> None:
        self.run = run

    async def prove(self, lemma_id: str) -> LemmaOutcome:
        token = current_lemma.set(lemma_id)
        try:
            return await self._prove(lemma_id)
        finally:
            current_lemma.reset(token)

    # --- the loop -------------------------------------------------------------------------------
    async def _prove(self, lid: str) -> LemmaOutcome:
        settled, claim_checks = await self._before_proving(lid)
        if settled is not None:
            return settled
        run = self.run
        prover, refiner = Prover(run), Refiner(run)
        refiner.tools_used = prover.tools_used  # one trace per lemma: every tool its proof used, in order
        loop = _Attempts(
            lid,
            claim_checks,
            prover,
            refiner,
            Verifier(run),
            CounterexampleSearcher(run),
            used=len(run.failures(lid)),
        )
        while loop.used < run.settings.theory_max_iterations:
            outcome = await self._attempt(loop, loop.used + 1)
            if outcome is not None:
                return outcome
        run.record_trace(lid, False, loop.prover.tools_used)
        run.note(f"lemma {lid} not proven after {loop.used} attempts")
        run.set_status(lid, "failed", attempt=loop.used)
        return "failed"

    async def _before_proving(self, lid: str) -> tuple[LemmaOutcome | None, list[CheckResult]]:
        """What settles a lemma before any proof is written — a counterexample found earlier,
        its claim refuted by a checker, a verified citation — and the claim's checks."""
        run = self.run
        node = run.node(lid)
        earlier = stored_refutation(lid, node.claim, run.state.counterexamples)
        if earlier is not None:
            return await self._refuted(lid, earlier), []
        run.emit(lid, "checking")
        claim_checks = await run_checks(node.claim, settings=run.settings)
        hit = confirmed_refutation(claim_checks)
        if hit is not None:
            return await self._refuted(lid, from_check(lid, hit)), claim_checks
        if node.provenance == "known":
            paper = verified_paper(run.ctx.bus.get_bibliography(), node.citation)
            if paper is None:
                run.note(
                    f"lemma {lid} is a known result but its citation {node.citation!r} is not "
                    "a verified entry of the bibliography; proved like a new lemma"
                )
            elif failed_checks(claim_checks):
                run.note(f"lemma {lid} is cited, but a mechanical check failed on its claim; proved like a new lemma")
            else:
                return self._cite(lid, paper, claim_checks), claim_checks
        return None, claim_checks

    async def _attempt(self, loop: _Attempts, attempt: int) -> LemmaOutcome | None:
        """One attempt: propose → check → review → decide. An outcome ends the lemma; None
        goes on to the next attempt (the failure, if any, is recorded and counted)."""
        self.run.set_status(loop.lid, "in_progress", attempt=attempt)
        if not loop.reverify:
            proposed = await self._propose(loop, attempt)
            if proposed == "split":
                return "split"
            if proposed is None:
                return None
            loop.candidate = proposed
            node = self.run.node(loop.lid)
            if restates_claim(proposed.proof, node.statement, node.informal):
                # nothing for a reviewer to check: a failed attempt, repaired like any gap
                self._fail(
                    loop.lid,
                    attempt,
                    proposed.proof,
                    "gap",
                    "the proof only restates the claim: give at least one step of argument",
                    [],
                )
                loop.used += 1
                return None
            circular = circular_citations(self.run.state.lemma_dag, loop.lid, proposed.proof)
            if circular:
                self._fail(loop.lid, attempt, proposed.proof, "circular", circular_text(loop.lid, circular), [])
                loop.used += 1
                return None
        candidate = loop.candidate
        assert candidate is not None  # set by the first successful proposal
        if not loop.reverify or loop.checks is None:  # a formal proof is checked once, not per review
            loop.checks = await self._check(loop, candidate)
        loop.reverify = False
        checks = loop.checks
        self.run.emit(loop.lid, "reviewing", attempt=attempt)
        try:
            review = await loop.verifier.review(loop.lid, candidate.proof, candidate.formal_proof)
        except LLMOutputError as exc:
            # The proof stands; only its review is retried.
            self._fail(
                loop.lid,
                attempt,
                candidate.proof,
                "unparseable",
                f"the review reply could not be read ({exc.message}); not accepted",
                checks,
            )
            loop.used += 1
            loop.reverify = True
            return None
        return await self._decide(loop, attempt, candidate, checks, review)

    async def _propose(self, loop: _Attempts, attempt: int) -> ProofAttempt | Literal["split"] | None:
        """A first proof, a broad repair (after stagnation) or a targeted one; "split" when the
        lemma was split into sub-lemmas; None when the reply was unusable (recorded)."""
        lid, candidate = loop.lid, loop.candidate
        failures = self.run.failures(lid)
        try:
            if candidate is None:
                return await loop.prover.write(lid)
            self.run.count_repair(repair_purpose(last_real_failure(failures).error_category))
            if stagnant(failures, self.run.settings.stagnation_window):
                repaired = await self._broad(lid, loop.refiner, candidate, failures[-1].error_category)
                return "split" if repaired is None else repaired
            return await loop.refiner.targeted(lid, candidate.proof, last_real_failure(failures))
        except (LLMOutputError, _Unusable) as exc:
            text = exc.message if isinstance(exc, LLMOutputError) else str(exc)
            self._fail(
                lid,
                attempt,
                candidate.proof if candidate else "",
                "unparseable",
                f"the proof reply could not be used: {text}",
                [],
            )
            loop.used += 1
            return None

    async def _check(self, loop: _Attempts, candidate: ProofAttempt) -> list[CheckResult]:
        """The claim's checks (run once, before the first proof), plus the formal proof's when
        one was given and the lemma still has a formal check left (formal_attempt.py)."""
        run, lid = self.run, loop.lid
        if candidate.formal_proof and run.node(lid).claim is None:
            run.note(
                f"lemma {lid}: a formal proof was given but the lemma has no claim to "
                "generate its statement from; ignored"
            )
            candidate.formal_proof = candidate.formal_helpers = None
        if candidate.formal_proof and not formal_allowed(run, lid):
            candidate.formal_proof = candidate.formal_helpers = None  # its formal route is closed
        if not candidate.formal_proof:
            return loop.claim_checks
        run.emit(lid, "checking", attempt=loop.used + 1)
        formal = await check_formal(run, lid, candidate.formal_proof, candidate.formal_helpers)
        return loop.claim_checks + [formal]

    async def _decide(
        self, loop: _Attempts, attempt: int, candidate: ProofAttempt, checks: list[CheckResult], review: ReviewVerdict
    ) -> LemmaOutcome | None:
        """Record the proof (review passed, no check of the claim failed; a rejected formal
        proof is settled on the side) or the failure, then look for a counterexample — also
        after the last attempt: a refuted lemma can be re-planned, a failed one not."""
        lid = loop.lid
        review_check = CheckResult(
            checker="llm_review",
            verdict="passed" if review_passed(review) else "failed",
            detail=review_text(review),
            version=loop.verifier.identity(),
        )
        formal_failure = rejected(checks)
        mech_failed = failed_checks(without_formal_failures(checks))
        if review_passed(review) and not mech_failed:
            note = ""
            if formal_failure is not None:
                checks, script, helpers, note = await settle_rejected(
                    self.run, lid, candidate.formal_proof or "", candidate.formal_helpers, checks
                )
                candidate.formal_proof, candidate.formal_helpers = script, helpers
            self._record(lid, attempt, candidate, checks + [review_check], review.confidence, loop.prover, note)
            return "proved"
        if mech_failed:
            detail = "\n".join(f"{c.checker}: {c.detail}" for c in mech_failed)
            category, text = "mechanical_check", f"{detail}\n\nreview:\n{review_text(review)}"
        else:
            category, text = review_category(review), review_text(review)
        if formal_failure is not None:
            # optional evidence: said once so the next proof can mend it, never the failure's cause
            text += f"\n\nthe optional Coq proof was rejected too (coqc): {formal_failure.detail}"
            if not formal_allowed(self.run, lid):
                close_formal(self.run, lid, formal_failure)
        self._fail(lid, attempt, candidate.proof, category, text, checks + [review_check])
        loop.used += 1
        cx = await loop.searcher.search(lid, text)
        return await self._refuted(lid, cx) if cx is not None else None

    # --- outcomes --------------------------------------------------------------------------------
    def _fail(self, lid: str, attempt: int, proof: str, category: str, text: str, checks: list[CheckResult]) -> None:
        self.run.add_failure(
            FailedAttempt(
                lemma_id=lid,
                attempt=attempt,
                proof=proof,
                error_category=category,  # type: ignore[arg-type]
                verifier_text=text,
                checks=checks,
            )
        )

    def _record(
        self,
        lid: str,
        attempt: int,
        candidate: ProofAttempt,
        checks: list[CheckResult],
        confidence: float,
        prover: Prover,
        formal_note: str = "",
    ) -> None:
        run = self.run
        reviewer, self_review = run.reviewer_identity()
        counts = run.review_client().review_counts()
        decision = decide_level(run.node(lid), checks, review=ReviewEvidence(passed=True, counts=counts))
        level, note = decision.level, decision.note
        if not counts and level == "unverified":
            run.note(f"lemma {lid}: {note}, so the lemma stays unverified")
        run.record_trace(lid, True, prover.tools_used)
        run.add_proof(
            ProofRecord(
                lemma_id=lid,
                proof=candidate.proof,
                verification_level=level,
                checks=checks,
                attempts=attempt,
                self_assessment=candidate.self_assessment.to_record(),
                review_confidence=confidence,
                formal_proof=candidate.formal_proof if level == "formal" else None,
                reviewer=reviewer,
                self_review=self_review,
                supporting=decision.supporting,
                level_note="; ".join(filter(None, [note, formal_note or run.formal_closed.get(lid, "")])),
            )
        )

    def _cite(self, lid: str, paper: Paper, checks: list[CheckResult]) -> LemmaOutcome:
        node = self.run.node(lid)
        citation = CheckResult(
            checker="citation",
            verdict="passed",
            detail=f"{node.citation} is {paper.paper_id} ({paper.title}), verified in the bibliography",
        )
        decision = decide_level(node, checks, citation=citation)
        self.run.add_proof(
            ProofRecord(
                lemma_id=lid,
                proof=f"Known result: {paper.title} [{node.citation}].",
                verification_level=decision.level,
                checks=checks + [citation],
                attempts=0,
                supporting=decision.supporting,
                level_note=decision.note,
            )
        )
        return "proved"

    async def _refuted(self, lid: str, cx: Counterexample) -> LemmaOutcome:
        outcome = await refute(self.run, lid, cx)
        return "root_refuted" if outcome == "root_refuted" else "refuted"

    async def _broad(self, lid: str, refiner: Refiner, candidate: ProofAttempt, category: str) -> ProofAttempt | None:
        """A new proof, or None when the lemma was split (its sub-lemmas are now in the DAG)."""
        run = self.run
        depth, parent = 0, run.node(lid).parent
        while parent is not None and parent in run.state.lemma_dag:
            depth, parent = depth + 1, run.state.lemma_dag[parent].parent
        can_split = depth < MAX_SPLIT_DEPTH and len(run.state.lemma_dag) < MAX_LEMMAS
        repair = await refiner.broad(lid, candidate.proof, category, can_split)
        problems: list[str] = []
        if repair.strategy == "split" and can_split:
            surgery = insert_split(run.state.lemma_dag, lid, repair.sub_lemmas)
            if not surgery.problems:
                for sid in surgery.changed:
                    run.state.lemma_dag[sid] = surgery.dag[sid]
                run.node(lid).dependencies = surgery.dag[lid].dependencies
                for text in surgery.notes:
                    run.note(text)
                run.note(f"lemma {lid} split into {', '.join(surgery.changed)} after repeated {category} errors")
                run.set_status(lid, "pending", subs=surgery.changed)
                for sid in surgery.changed:
                    run.emit(sid, "pending", parent=lid)
                return None
            problems = surgery.problems
        if repair.attempt is None:
            why = "; ".join(problems) or "the broad repair gave no new proof"
            raise _Unusable(f"unusable broad repair: {why}")
        if problems:
            run.note(f"split of {lid} rejected ({'; '.join(problems)}); using the new approach")
        return repair.attempt
