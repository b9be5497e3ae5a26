"""TheoryStage: prove the formalized lemma DAG, then assemble and check the whole proof.

Final status: "proved" only when every lemma the main theorem relies on is proven at level
"cited" or stronger, nothing capped the theorem's level (a refuted lemma replaced by one without
a claim) AND the assembled proof passed the consistency check, whose mechanical part runs
first; "contradicted" is set later, by the Experiment stage's evidence; "refuted" when a
counterexample to the main statement was confirmed; "abandoned" when a lemma could not be
proven (or was refuted with no re-plan left) or the consistency check failed; "in_progress"
when the run was stopped (Ctrl+C, pause, budget) — resume continues from there.

A proven lemma no proof uses is pruned from the proof, not fatal (lemma_use.py); a circular
proof is never proved. Calls and tokens per proved and failed lemma, and what the repair rounds
went on, are written at the end of every run (costs.py).
"""

from __future__ import annotations

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.formalize.dag import active_ids, root_of
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.agents.theory.assembly import ConsistencyChecker, assemble, structural_findings
from eurekaclaw.agents.theory.costs import COSTS_FILE, proof_costs
from eurekaclaw.agents.theory.counterexample import from_check
from eurekaclaw.agents.theory.lemma_use import UNUSED_NOTE, prune_unused
from eurekaclaw.agents.theory.level import theorem_gaps, theorem_verdict
from eurekaclaw.agents.theory.mechanical import confirmed_refutation, run_checks
from eurekaclaw.agents.theory.refutation import describe, refute
from eurekaclaw.agents.theory.run import TheoryRun
from eurekaclaw.agents.theory.scheduler import Scheduler
from eurekaclaw.knowledge_bus.keys import INJECTED_SKILLS, PROOF_COSTS, TOOL_TRACES
from eurekaclaw.store.files import atomic_write_json
from eurekaclaw.types.artifacts import FailedAttempt, TheoryState
from eurekaclaw.types.tasks import InputSpec

FINISHED = ("proved", "self_reviewed", "refuted", "contradicted", "abandoned")


def fresh(state: TheoryState) -> None:
    """Back to the DAG the Formalizer produced, with nothing proven (a re-run without resume)."""
    source = state.formalized_dag or state.lemma_dag
    state.lemma_dag = {lid: n.model_copy(deep=True, update={"status": "pending"}) for lid, n in source.items()}
    state.proven_lemmas = {}
    state.failed_attempts = []
    # Counterexamples stay: every claim of the new run is re-checked at them.
    state.level_cap_reasons = []
    state.assembled_proof = None
    state.consistency_check = None
    state.replans = 0


def reopen_for_resume(state: TheoryState, max_iterations: int) -> bool:
    """Lemmas left in flight by a crash go back to pending; a lemma that failed while fewer
    attempts were allowed gets the rest. Proven lemmas are never touched. True if anything
    can still be done."""
    changed = False
    for lid, node in state.lemma_dag.items():
        if node.status == "in_progress":
            node.status = "pending"
            changed = True
        elif node.status == "failed":
            used = sum(1 for f in state.failed_attempts if f.lemma_id == lid)
            if used < max_iterations:
                node.status = "pending"
                changed = True
    return changed or state.status not in FINISHED


def outcome_for(state: TheoryState) -> StageOutcome:
    if state.status in ("proved", "self_reviewed"):
        return StageOutcome(status="completed", summary=state.status_reason)
    return StageOutcome(status="partial", summary=f"theorem {state.status}", reason=state.status_reason)


class TheoryStage(Stage):
    name = "theory"
    needs = ("theory_state", "bibliography")
    produces = ("theory_state", "injected_skills", "tool_traces", "proof_costs")
    rerunnable = True

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        state = ctx.bus.get_theory_state()
        if state is None or not state.lemma_dag:
            return "no lemma DAG to prove: the Formalize stage produced none"
        if root_of(state.lemma_dag) is None:
            return "the lemma DAG has no single main theorem"
        return None

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        from eurekaclaw.verify.portfolio import claim_check_session  # (heavy: numpy, sympy)

        with claim_check_session():  # identical claims are checked once per run
            return await self._run(ctx, spec, resume=resume)

    async def _run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool) -> StageOutcome:
        reason = self.missing_inputs(ctx, spec)
        if reason:
            return StageOutcome(status="skipped", reason=reason)
        state = ctx.bus.get_theory_state()
        assert state is not None
        if resume:
            if not reopen_for_resume(state, ctx.settings.theory_max_iterations):
                return outcome_for(state)
        else:
            fresh(state)
            # What the Learn stage reads describes this run only.
            ctx.bus.put(INJECTED_SKILLS, {})
            ctx.bus.put(TOOL_TRACES, [])
            ctx.bus.put(PROOF_COSTS, {})
        state.status, state.status_reason = "in_progress", ""
        run = TheoryRun(ctx, state)
        run.save_now()
        try:
            await self._main_claim(run)
            await Scheduler(run).run_all()
            if not _root_refuted(state) and self._reopen_unlinked(run):
                await Scheduler(run).run_all()
            if not _root_refuted(state):
                await self._conclude(run)
        except BaseException:
            # Ctrl+C, pause, budget or a crash: leave a state that resume can continue.
            if state.status not in FINISHED:
                state.status = "in_progress"
                state.status_reason = "stopped before the end; resume to continue"
            run.save_now()
            write_costs(run)
            raise
        run.save_now()
        write_costs(run)
        return outcome_for(state)

    async def _main_claim(self, run: TheoryRun) -> None:
        """Try to refute the main statement's claim before any lemma is worked on."""
        root = root_of(run.state.lemma_dag)
        assert root is not None
        node = run.node(root)
        if node.claim is None or root in run.state.proven_lemmas:
            return
        hit = confirmed_refutation(await run_checks(node.claim, settings=run.settings))
        if hit is not None:
            await refute(run, root, from_check(root, hit))

    @staticmethod
    def _reopen_unlinked(run: TheoryRun) -> bool:
        """Once per run, before the consistency check: a proof that cites a lemma outside its
        dependencies, or a lemma no proof cites, goes back to its prover with the finding, so a
        forgotten citation costs one attempt rather than the theorem. Only when every lemma is
        proven (otherwise the theorem is not proved anyway)."""
        state = run.state
        active = run.active()
        if any(lid not in state.proven_lemmas for lid in active):
            return False
        prune(run)
        findings = [f for f in structural_findings(state) if f.lemmas]
        if not findings:
            return False
        reopened: dict[str, list[str]] = {}
        for finding in findings:
            for lid in finding.lemmas:
                reopened.setdefault(lid, []).append(finding.text)
        for lid, texts in sorted(reopened.items()):
            rec = state.proven_lemmas.pop(lid)
            run.add_failure(
                FailedAttempt(
                    lemma_id=lid,
                    attempt=rec.attempts,
                    proof=rec.proof,
                    error_category="gap",
                    verifier_text="mechanical consistency check: "
                    + "; ".join(texts)
                    + ". Cite every lemma the proof uses as Lemma~\\ref{lem:<id>}, and only its dependencies.",
                )
            )
            run.set_status(lid, "pending")
            run.count_repair("consistency")
        run.note(
            "proofs sent back once for their citations before the consistency check: " + ", ".join(sorted(reopened))
        )
        return True

    async def _conclude(self, run: TheoryRun) -> None:
        state = run.state
        prune(run)
        unprove_circular(run)
        active = run.active()
        gap = theorem_gaps(state, active)
        if gap is not None:
            state.status = "abandoned"
            state.status_reason = gap
            return
        state.assembled_proof = assemble(state)
        run.save()
        run.ctx.events("theory", state="consistency_check", message="checking the assembled proof")
        check = await ConsistencyChecker(run.ctx).check(state, state.assembled_proof)
        state.consistency_check = check
        if check.verdict != "passed":
            state.status = "abandoned"
            state.status_reason = f"the assembled proof failed its consistency check: {check.detail}"
            return
        verdict = theorem_verdict(state, active)
        state.status = verdict.status
        state.status_reason = verdict.reason
        if state.contradiction_replans:
            state.status_reason += (
                "; this is the second formalization: the experiment contradicted "
                "the first, so the theorem proved may differ from the one first stated"
            )
        if verdict.self_reviewed:
            n = len(verdict.self_reviewed)
            state.status_reason += f"; {n} lemma(s) reviewed only by the model that proved them (self-review)"
        if state.counterexamples:
            refuted = ", ".join(describe(c) for c in state.counterexamples)
            state.status_reason += f"; counterexamples on the way: {refuted}"


def _root_refuted(state: TheoryState) -> bool:
    # read after the scheduler ran: it may have refuted the theorem (a function call, so the
    # status set to "in_progress" above is not taken as still holding)
    return state.status == "refuted"


def prune(run: TheoryRun) -> None:
    """Unused lemmas leave the proof (their records stay, noted) before it is judged."""
    dropped = prune_unused(run.state)
    if dropped:
        run.note(f"{UNUSED_NOTE}: {', '.join(dropped)} (no proof of a lemma relying on it cites it); pruned")
        run.save()


def unprove_circular(run: TheoryRun) -> None:
    """A proof found circular once every proof is in (a re-planned or split DAG) is no proof."""
    for finding in structural_findings(run.state):
        if not finding.circular:
            continue
        for lid in finding.lemmas:
            if run.state.proven_lemmas.pop(lid, None) is not None:
                run.note(f"lemma {lid} is not proved: {finding.text}")
                run.set_status(lid, "failed")


def lemma_outcomes(state: TheoryState) -> dict[str, str]:
    active = active_ids(state.lemma_dag)
    out: dict[str, str] = {}
    for lid, node in state.lemma_dag.items():
        if lid in state.proven_lemmas:
            out[lid] = "proved" if lid in active else "unused"
        elif node.status in ("failed", "refuted"):
            out[lid] = node.status
        else:
            out[lid] = "open"
    return out


def write_costs(run: TheoryRun) -> None:
    """Calls per proof (costs.py), on the bus (a resume adds to it) and in proof_costs.json."""
    ledger = getattr(run.ctx.llm, "ledger", None)
    by_lemma = dict(getattr(ledger, "by_lemma", {}) or {})
    run.repairs["refutation"] = max(run.repairs.get("refutation", 0), run.state.replans)
    data = proof_costs(lemma_outcomes(run.state), by_lemma, run.repairs)
    run.ctx.bus.put(PROOF_COSTS, data)
    if run.ctx.session is not None:
        atomic_write_json(run.ctx.session.file(COSTS_FILE), data)
