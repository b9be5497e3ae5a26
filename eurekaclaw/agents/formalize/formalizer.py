"""The Formalizer agent: statement (+ research brief, + memory hints) -> formal statement,
assumptions, labelled proof plan and a validated lemma DAG; later, re-plans around a refuted
lemma. Structural defects go back to the model once, named; then the plan is rejected."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.agents.formalize.claims import to_claim
from eurekaclaw.agents.formalize.dag import (
    active_ids,
    find_cycle,
    root_of,
    structural_problems,
    unused_lemmas,
)
from eurekaclaw.agents.formalize.models import ClaimFixes, FormalPlan, LemmaOut, Replan
from eurekaclaw.agents.formalize.surgery import Surgery, merge_replan
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import Counterexample, KnownResult, LemmaNode, TheoryState
from eurekaclaw.types.tasks import Task, TaskResult


class PlanRejected(Exception):
    """The model could not produce a usable plan; `reason` says why in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Formalization:
    plan: FormalPlan
    lemmas: dict[str, LemmaNode]
    notes: list[str] = field(default_factory=list)


MAIN_ID = "main"


def designate_root(plan: FormalPlan, statement: str, notes: list[str]) -> None:
    """When no lemma is marked as the main theorem, the main theorem is still known: it is the
    formal statement. Mark the one lemma nothing depends on, or add the theorem on top of
    several. Several lemmas marked as root stay an error for the model to repair."""
    if not plan.lemmas or any(lo.is_root for lo in plan.lemmas):
        return
    nodes = [lo.to_node() for lo in plan.lemmas]
    if find_cycle({n.id: n for n in nodes}):
        return  # the cycle is the real problem; the repair round names it
    tops = unused_lemmas(nodes)
    if len(tops) == 1:
        next(lo for lo in plan.lemmas if lo.id == tops[0]).is_root = True
        notes.append(f"no lemma was marked as the main theorem; {tops[0]} (which nothing depends on) is")
        return
    root_id = MAIN_ID
    while any(lo.id == root_id for lo in plan.lemmas):
        root_id += "_"
    plan.lemmas.append(
        LemmaOut(id=root_id, statement=plan.formal_statement.strip() or statement,
                 informal="the main theorem", dependencies=tops, is_root=True)
    )
    notes.append(f"no lemma was marked as the main theorem; added {root_id} on top of {', '.join(tops)}")


def _follow_up(request: LLMRequest, answer: BaseModel, text: str) -> LLMRequest:
    """The same conversation, with the model's answer and our objection appended."""
    messages = list(request.messages) + [
        Message(role="assistant", content=answer.model_dump_json()),
        Message(role="user", content=text),
    ]
    return request.model_copy(update={"messages": messages})


class Formalizer(BaseAgent):
    role = "formalizer"
    max_tokens_key = "formalize"

    def _request(self, template: str, **context: Any) -> LLMRequest:
        return self.request(
            render_prompt(template, **context), system=render_prompt("formalize_system")
        )

    async def execute(self, task: Task) -> TaskResult:
        try:
            result = await self.formalize(task.inputs["statement"])
        except PlanRejected as exc:
            return TaskResult(success=False, error=exc.reason)
        return TaskResult(success=True, summary=f"{len(result.lemmas)} lemmas")

    # --- first plan -------------------------------------------------------------------------
    async def formalize(
        self,
        statement: str,
        *,
        known_results: list[KnownResult] | None = None,
        research_gap: str = "",
        memory_hints: str = "",
    ) -> Formalization:
        request = self._request(
            "formalize_plan",
            statement=statement,
            known_results=[k.model_dump() for k in known_results or []],
            research_gap=research_gap,
            memory_hints=memory_hints,
        )
        plan = await self._ask(request, FormalPlan, "formal plan")
        notes: list[str] = []
        designate_root(plan, statement, notes)
        problems = structural_problems([lo.to_node() for lo in plan.lemmas])
        if problems:
            self.log("plan has structural problems; asking once for a repair", problems=problems)
            repair = _follow_up(request, plan, render_prompt("formalize_repair", problems=problems))
            plan = await self._ask(repair, FormalPlan, "repaired formal plan")
            designate_root(plan, statement, notes)
            problems = structural_problems([lo.to_node() for lo in plan.lemmas])
            if problems:
                raise PlanRejected("the proof plan is not a valid lemma DAG: " + "; ".join(problems))
        lemmas = await self._attach_claims(request, plan, notes)
        root = root_of(lemmas)
        assert root is not None  # structural_problems guarantees exactly one
        if not lemmas[root].statement.strip():
            lemmas[root].statement = plan.formal_statement
        needed = active_ids(lemmas)
        for lid in [lid for lid in lemmas if lid not in needed]:
            notes.append(f"lemma {lid} dropped: the main theorem does not rely on it")
            del lemmas[lid]
        return Formalization(plan=plan, lemmas=lemmas, notes=notes)

    async def _ask(self, request: LLMRequest, output: type[Any], what: str) -> Any:
        try:
            return await self.ask_structured(request, output)
        except LLMOutputError as exc:
            raise PlanRejected(f"the model's {what} could not be read ({exc.message})") from None

    async def _attach_claims(
        self, request: LLMRequest, plan: FormalPlan, notes: list[str]
    ) -> dict[str, LemmaNode]:
        outs = {lo.id: lo for lo in plan.lemmas}
        lemmas = {lid: lo.to_node() for lid, lo in outs.items()}
        bad: dict[str, str] = {}
        for lid, lo in outs.items():
            claim, reason = to_claim(lo.claim)
            lemmas[lid].claim = claim
            if reason:
                bad[lid] = reason
        if bad:
            self.log("unparseable claims; asking once for fixes", claims=bad)
            prompt = render_prompt(
                "formalize_claims_repair",
                problems=[{"lemma_id": k, "reason": v, "claim": json.dumps(
                    outs[k].claim.model_dump() if outs[k].claim else None)} for k, v in bad.items()],
            )
            try:
                fixes = await self.ask_structured(_follow_up(request, plan, prompt), ClaimFixes)
            except LLMOutputError:
                fixes = ClaimFixes()
            fixed = {f.lemma_id: f.claim for f in fixes.fixes if f.lemma_id in bad}
            for lid, reason in bad.items():
                claim, again = to_claim(fixed.get(lid))
                if claim is not None:
                    lemmas[lid].claim = claim
                    continue
                why = again or reason
                notes.append(f"claim of lemma {lid} dropped (could not be parsed: {why}); "
                             "the lemma goes on without mechanical checks")
        return lemmas

    # --- re-plan after a refutation --------------------------------------------------------------
    async def replan(
        self, state: TheoryState, refuted_id: str, counterexample: Counterexample, reopened: set[str]
    ) -> Surgery:
        """A re-planned DAG (check `.problems`: non-empty means the re-plan was rejected)."""
        dag = state.lemma_dag
        request = self._request(
            "formalize_replan",
            formal_statement=state.formal_statement,
            assumptions=state.assumptions,
            lemmas=[
                {
                    "id": n.id,
                    "statement": n.statement,
                    "status": "proved" if n.id in state.proven_lemmas else n.status,
                    "dependencies": n.dependencies,
                    "is_root": n.is_root,
                }
                for n in dag.values()
            ],
            refuted=dag[refuted_id],
            counterexample=counterexample,
            reopened=sorted(reopened),
        )
        try:
            out = await self.ask_structured(request, Replan)
        except LLMOutputError as exc:
            return Surgery(dag=dict(dag), problems=[f"re-plan reply could not be read ({exc.message})"])
        result = merge_replan(dag, out.lemmas, reopened)
        if not result.problems:
            return result
        repair = _follow_up(request, out, render_prompt("formalize_repair", problems=result.problems))
        try:
            out = await self.ask_structured(repair, Replan)
        except LLMOutputError as exc:
            return Surgery(dag=dict(dag), problems=[f"re-plan reply could not be read ({exc.message})"])
        return merge_replan(dag, out.lemmas, reopened)
