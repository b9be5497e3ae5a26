"""What a confirmed counterexample does: the lemma is refuted and recorded, every lemma that
relied on it is reopened, and the Formalizer re-plans that part of the DAG (at most
THEORY_MAX_REPLANS times per session). A counterexample to the main theorem ends the run."""

from __future__ import annotations

from typing import Literal

from eurekaclaw.agents.formalize.dag import dependants, root_of
from eurekaclaw.agents.formalize.formalizer import Formalizer
from eurekaclaw.agents.formalize.surgery import merge_replan
from eurekaclaw.agents.theory.prover import claim_text
from eurekaclaw.agents.theory.run import TheoryRun
from eurekaclaw.types.artifacts import Counterexample, LemmaNode

RefutationOutcome = Literal["root_refuted", "replanned", "blocked"]


def replacement_cap(node: LemmaNode, refuted_id: str) -> str | None:
    """Why a lemma standing in for a refuted one caps the theorem: nothing machine-checkable
    shows the refutation does not apply to it (no claim, or one flagged trivial or narrowed:
    a checker's proof of such a claim says nothing). None when its claim can carry it."""
    if node.replaces != refuted_id:
        return None
    if node.claim is None:
        return (
            f"lemma {node.id} replaces the refuted lemma {refuted_id} but has no machine-checkable "
            "claim, so nothing shows the refutation does not apply to it"
        )
    if node.claim_flags:
        return (
            f"lemma {node.id} replaces the refuted lemma {refuted_id} but its claim is flagged "
            f"({'; '.join(node.claim_flags)}), so nothing shows the refutation does not apply to it"
        )
    return None


def describe(cx: Counterexample) -> str:
    values = ", ".join(f"{k} = {v}" for k, v in cx.assignment.items()) or "(no values)"
    return f"{values} ({cx.checker})"


async def refute(run: TheoryRun, lemma_id: str, cx: Counterexample) -> RefutationOutcome:
    state = run.state
    dag = state.lemma_dag
    # What was refuted travels with the counterexample: re-plans, provers and reviewers are
    # shown it, and every later claim is re-checked at its values.
    cx.statement = cx.statement or dag[lemma_id].statement
    cx.claim = cx.claim or dag[lemma_id].claim
    state.counterexamples.append(cx)
    state.proven_lemmas.pop(lemma_id, None)
    dag[lemma_id].status = "refuted"
    if lemma_id == root_of(dag):
        state.status = "refuted"
        # What a checker refuted is the formalizer's claim, not the user's words: say which
        # claim, so a mis-formalized statement is not taken for a false one.
        formal = claim_text(cx.claim) or cx.statement
        state.status_reason = (
            f"counterexample to the main statement as formalized ({formal}): {describe(cx)}; "
            "the formalization is the model's reading of the statement: check that it says what you meant"
        )
        run.save()
        run.emit(lemma_id, "refuted", counterexample=cx.assignment)
        return "root_refuted"
    reopened = dependants(dag, lemma_id)
    for lid in reopened:
        state.proven_lemmas.pop(lid, None)
        dag[lid].status = "pending"
    run.note(f"lemma {lemma_id} refuted by {describe(cx)}; reopened: {', '.join(sorted(reopened)) or 'none'}")
    run.save()
    run.emit(lemma_id, "refuted", counterexample=cx.assignment)
    for lid in sorted(reopened):
        run.emit(lid, "pending", reopened_by=lemma_id)
    async with run.replan_lock:
        if state.replans >= run.settings.theory_max_replans:
            run.note(
                f"no re-plan left after the refutation of {lemma_id} "
                f"(THEORY_MAX_REPLANS={run.settings.theory_max_replans})"
            )
            run.save()
            return "blocked"
        state.replans += 1
        run.save()
        proposal = await Formalizer(run.ctx).replan(state, lemma_id, cx, reopened)
        # Re-apply to the DAG as it is now: other lemmas went on while the model was thinking.
        result = (
            merge_replan(state.lemma_dag, proposal.proposals, reopened, lemma_id) if not proposal.problems else proposal
        )
        if result.problems:
            run.note(f"re-plan after the refutation of {lemma_id} rejected: " + "; ".join(result.problems))
            run.save()
            return "blocked"
        for lid in result.changed:
            state.lemma_dag[lid] = result.dag[lid]
            state.proven_lemmas.pop(lid, None)
            state.lemma_dag[lid].status = "pending"
        for text in result.notes:
            run.note(text)
        for lid in result.changed:
            why = replacement_cap(state.lemma_dag[lid], lemma_id)
            if why:
                state.level_cap_reasons.append(why)
        run.note(
            f"re-plan {state.replans} after the refutation of {lemma_id}: "
            f"added or restated {', '.join(result.changed) or 'nothing'}"
        )
        run.save()
        for lid in result.changed:
            run.emit(lid, "pending", replan=state.replans)
        return "replanned"
