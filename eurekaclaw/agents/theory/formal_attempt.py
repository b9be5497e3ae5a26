"""A formal (Coq) proof is optional evidence about the Coq text, never a veto on the lemma.

It is checked only against the statement the project generated from the lemma's claim (the
claim's own checks — falsifier, SMT — ran once before the first proof and do not depend on it).
When coqc rejects it while the review passed and no check failed on the claim, the rejection is
fed back once, with coqc's message and the exact statement to prove; if the repaired script is
rejected too, the formal route is closed for the lemma, the rejected check is left out of its
record with a note saying so, and the lemma keeps the level its claim's checks and its review
give it. A lemma gets at most MAX_FORMAL_CHECKS formal checks, whatever the review says.
"""

from __future__ import annotations

import asyncio
import logging

from eurekaclaw.agents.theory.mechanical import coq_statement_for
from eurekaclaw.agents.theory.models import FormalRepair
from eurekaclaw.agents.theory.run import RunAgent, TheoryRun, summarise
from eurekaclaw.errors import BudgetExceededError, LLMOutputError
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import CheckResult
from eurekaclaw.verify.registry import names_of_kind

log = logging.getLogger(__name__)

MAX_FORMAL_CHECKS = 2
ERROR_CHARS = 1500


def is_formal(check: CheckResult) -> bool:
    # "formal" names the result of a proof in a system no checker is registered for
    return check.checker == "formal" or check.checker in names_of_kind("formal")


def rejected(checks: list[CheckResult]) -> CheckResult | None:
    """The formal check that failed, if any."""
    return next((c for c in checks if is_formal(c) and c.verdict == "failed"), None)


def without_formal_failures(checks: list[CheckResult]) -> list[CheckResult]:
    return [c for c in checks if not (is_formal(c) and c.verdict == "failed")]


def first_line(text: str) -> str:
    """What the note says coqc objected to: its `Error:` message (which coqc wraps over several
    lines) when there is one, not the preamble about line numbers; else the first line."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith("Error")), None)
    if start is None:
        return summarise(lines[0] if lines else "no message", 200)
    message = [lines[start]]
    for line in lines[start + 1 :]:
        if line.startswith(("(", "File ", "Error")):
            break
        message.append(line)
    return summarise(" ".join(message), 200)


async def check_formal(run: TheoryRun, lemma_id: str, script: str, helpers: str | None) -> CheckResult:
    """coqc on `script` against the statement generated from the lemma's claim (counted)."""
    from eurekaclaw.verify.coq import coq_check_claim

    claim = run.node(lemma_id).claim
    assert claim is not None  # the caller ignores a formal proof of a lemma without a claim
    run.formal_checks[lemma_id] = run.formal_checks.get(lemma_id, 0) + 1
    try:
        return await asyncio.to_thread(
            coq_check_claim, claim, script, helpers=helpers or "", timeout_s=run.settings.formal_timeout_s
        )
    except BudgetExceededError:
        raise
    except Exception as exc:  # a checker bug is no evidence either way
        log.warning("formal check crashed: %s", exc, exc_info=True)
        return CheckResult(checker="coq", verdict="error", detail=f"{type(exc).__name__}: {exc}")


def formal_allowed(run: TheoryRun, lemma_id: str) -> bool:
    """Whether a formal proof of this lemma is still checked (and asked for)."""
    return lemma_id not in run.formal_closed and run.formal_checks.get(lemma_id, 0) < MAX_FORMAL_CHECKS


def close_formal(run: TheoryRun, lemma_id: str, failure: CheckResult) -> str:
    """Stop asking for and checking formal proofs of this lemma; the note for its record."""
    if lemma_id in run.formal_closed:
        return run.formal_closed[lemma_id]
    n = run.formal_checks.get(lemma_id, 0)
    note = (
        f"formal proof dropped: coqc rejected it {n} time{'s' if n != 1 else ''} "
        f"(last: {first_line(failure.detail)}); the level comes from the other checks and the review"
    )
    run.formal_closed[lemma_id] = note
    run.note(f"lemma {lemma_id}: {note}")
    return note


class FormalRepairer(RunAgent):
    """One repair of a rejected Coq script: the statement and coqc's message, nothing else."""

    role = "refiner"
    max_tokens_key = "prover"

    async def repair(self, lemma_id: str, script: str, helpers: str | None, error: str) -> FormalRepair:
        node = self.run.node(lemma_id)
        prompt = render_prompt(
            "theory_formal_repair",
            lemma=node,
            coq_statement=coq_statement_for(node.claim) or "",
            formal_proof=script,
            formal_helpers=helpers or "",
            error=error[:ERROR_CHARS],
        )
        request = self.request(prompt, system=render_prompt("theory_refiner_system"), lemma_id=lemma_id)
        return await self.ask_structured(request, FormalRepair)


async def settle_rejected(
    run: TheoryRun, lemma_id: str, script: str, helpers: str | None, checks: list[CheckResult]
) -> tuple[list[CheckResult], str | None, str | None, str]:
    """The lemma is accepted on its other checks and its review, but coqc rejected its formal
    proof: one repair round (when the lemma has a formal check left), else the formal proof is
    dropped. (checks for the record, the formal script and helpers that passed or None, note)."""
    failure = rejected(checks)
    assert failure is not None
    kept = without_formal_failures(checks)
    if not formal_allowed(run, lemma_id):
        return kept, None, None, close_formal(run, lemma_id, failure)
    run.count_repair("formal")
    try:
        repair = await FormalRepairer(run).repair(lemma_id, script, helpers, failure.detail)
    except LLMOutputError as exc:
        run.note(f"lemma {lemma_id}: the formal repair reply could not be read ({exc.message})")
        return kept, None, None, close_formal(run, lemma_id, failure)
    again = await check_formal(run, lemma_id, repair.formal_proof, repair.formal_helpers)
    if again.verdict == "passed":
        return kept + [again], repair.formal_proof, repair.formal_helpers, ""
    if again.verdict != "failed":  # no checker, time-out, error: no evidence either way
        return kept + [again], None, None, close_formal(run, lemma_id, failure)
    return kept, None, None, close_formal(run, lemma_id, again)
