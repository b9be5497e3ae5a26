"""FormalizeStage: the statement to prove (prove mode) or the research brief's selected
direction (from-papers / explore) becomes the TheoryState the Theory stage works on."""

from __future__ import annotations

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.formalize.dag import topological
from eurekaclaw.agents.formalize.formalizer import Formalizer, PlanRejected
from eurekaclaw.agents.formalize.memory_hints import memory_hints
from eurekaclaw.agents.formalize.models import PlanItemOut
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.types.artifacts import LemmaNode, ProofPlan, TheoryState
from eurekaclaw.types.tasks import InputSpec


def input_statement(ctx: AgentContext, spec: InputSpec) -> tuple[str, str]:
    """(statement, reason when there is none)."""
    if spec.mode == "prove":
        text = spec.statement.strip()
        return text, "" if text else "no statement to prove"
    brief = ctx.bus.get_research_brief()
    if brief is None:
        return "", "no research brief: the survey did not run or produced nothing"
    if brief.selected_direction is None or not brief.selected_direction.statement.strip():
        return "", "the research brief has no selected direction to formalize"
    return brief.selected_direction.statement.strip(), ""


def plan_items(items: list[PlanItemOut], lemmas: dict[str, LemmaNode], order: list[str]) -> list[ProofPlan]:
    """The plan as the model gave it (lemma references pruned to lemmas that exist), or one
    item per lemma when it gave none, so every plan is labelled known / adapted / new."""
    plan = [item.to_plan() for item in items]
    for item in plan:
        item.lemma_ids = [lid for lid in item.lemma_ids if lid in lemmas]
    if plan:
        return plan
    return [
        ProofPlan(
            id=f"step-{i}",
            description=lemmas[lid].informal or lemmas[lid].statement,
            provenance=lemmas[lid].provenance,
            citation=lemmas[lid].citation,
            lemma_ids=[lid],
        )
        for i, lid in enumerate(order, 1)
    ]


class FormalizeStage(Stage):
    name = "formalize"
    needs = ("research_brief", "theory_state")  # the old state: its counterexamples stay on record
    produces = ("theory_state",)

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        statement, reason = input_statement(ctx, spec)
        return None if statement else reason

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        statement, reason = input_statement(ctx, spec)
        if not statement:
            return StageOutcome(status="skipped", reason=reason)
        existing = ctx.bus.get_theory_state()
        if (
            resume
            and existing is not None
            and existing.lemma_dag
            and existing.informal_statement == statement
            and existing.status != "contradicted"  # stopped before the re-formalization it asked for
        ):
            return StageOutcome(status="completed", summary="already formalized")
        brief = ctx.bus.get_research_brief()
        known = list(brief.known_results) if brief else []
        gap = brief.gap_analysis if brief else ""
        hints = await memory_hints(ctx, statement)
        # A re-formalization after the experiment contradicted the first one: what failed stays
        # on record and in view.
        carried = existing if existing is not None and existing.informal_statement == statement else None
        contradicted = carried is not None and carried.status == "contradicted"
        ctx.events("formalize", state="started", message="formalizing the statement")
        try:
            result = await Formalizer(ctx).formalize(
                statement,
                known_results=known,
                research_gap=gap,
                memory_hints=hints,
                contradicted=carried if contradicted else None,
            )
        except PlanRejected as exc:
            ctx.bus.put_theory_state(
                TheoryState(
                    informal_statement=statement,
                    known_results=known,
                    research_gap=gap,
                    status="pending",
                    status_reason=f"formalization failed: {exc.reason}",
                )
            )
            ctx.events("formalize", state="failed", message=exc.reason)
            return StageOutcome(status="failed", reason=f"formalization failed: {exc.reason}")
        lemmas = result.lemmas
        order = topological(lemmas)
        state = TheoryState(
            informal_statement=statement,
            formal_statement=result.plan.formal_statement,
            assumptions=result.plan.assumptions,
            known_results=known,
            research_gap=gap,
            proof_plan=plan_items(result.plan.proof_plan, lemmas, order),
            lemma_dag={lid: lemmas[lid] for lid in order},
            open_goals=order,
            notes=result.notes,
            formalized_dag={lid: lemmas[lid].model_copy(deep=True) for lid in order},
            status="pending",
            statement_scope=result.statement_scope,
        )
        if carried is not None:
            state.counterexamples = list(carried.counterexamples)
            state.contradiction_replans = carried.contradiction_replans
            if contradicted:
                state.notes = [
                    *carried.notes,
                    f"formalized again after the experiment contradicted "
                    f"the formal statement {carried.formal_statement!r}: " + "; ".join(carried.contradictions),
                    *state.notes,
                ]
        ctx.bus.put_theory_state(state)
        ctx.checkpoint(theory={"status": "pending", "proven": [], "open_goals": order})
        for lid in order:
            ctx.events("lemma", lemma_id=lid, state="pending", attempt=0, level=None)
        claims = sum(1 for n in lemmas.values() if n.claim is not None)
        return StageOutcome(
            status="completed",
            summary=f"{len(lemmas)} lemmas ({claims} with machine-checkable claims)",
        )
