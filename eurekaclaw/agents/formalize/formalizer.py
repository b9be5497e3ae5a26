"""The Formalizer agent: statement (+ research brief, + memory hints) -> formal statement,
assumptions, labelled proof plan and a validated lemma DAG; later, re-plans around a refuted
lemma. Structural defects go back to the model once, named; then the plan is rejected."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.agents.formalize.claims import attach_claim, to_claim
from eurekaclaw.agents.formalize.dag import (
    active_ids,
    find_cycle,
    repair_structure,
    root_of,
    structural_problems,
    unused_lemmas,
)
from eurekaclaw.agents.formalize.models import ClaimFixes, FormalPlan, LemmaOut, Replan
from eurekaclaw.agents.formalize.surgery import Surgery, merge_replan
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.skills.prompt_budget import skills_block
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import Counterexample, KnownResult, LemmaNode, StatementScope, TheoryState


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
    statement_scope: StatementScope | None = None  # the root claim against the statement's claim


def statement_scope(root: LemmaNode, plan: FormalPlan) -> StatementScope | None:
    """How the root lemma's claim relates to the user's statement (verify/claim_match.py);
    None when the root has no claim (nothing mechanical is said about the theorem then)."""
    if root.claim is None:
        return None
    statement, reason = to_claim(plan.statement_claim)
    if statement is None:
        why = f"its claim could not be parsed ({reason})" if reason else "it was given no machine-checkable form"
        return StatementScope(
            relation="unknown",
            sentence=f"whether the proved claim covers the whole statement was not checked: {why}",
        )
    from eurekaclaw.verify.claim_match import compare_scope

    try:
        decision = compare_scope(root.claim, statement)
    except Exception as exc:  # fail closed: not compared is not "same"
        return StatementScope(
            relation="unknown",
            sentence=f"the proved claim could not be compared with the statement ({type(exc).__name__})",
            statement_claim=statement,
        )
    return StatementScope(
        relation=decision.relation,
        sentence=decision.sentence,
        statement_claim=statement,
        differences=decision.differences,
        witness=decision.witness,
        statement_fails_at_witness=decision.statement_fails_at_witness,
    )


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
        LemmaOut(
            id=root_id,
            statement=plan.formal_statement.strip() or statement,
            informal="the main theorem",
            dependencies=tops,
            is_root=True,
        )
    )
    notes.append(f"no lemma was marked as the main theorem; added {root_id} on top of {', '.join(tops)}")


def _follow_up(request: LLMRequest, answer: BaseModel, text: str) -> LLMRequest:
    """The same conversation, with the model's answer and our objection appended."""
    messages = list(request.messages) + [
        Message(role="assistant", content=answer.model_dump_json()),
        Message(role="user", content=text),
    ]
    return request.model_copy(update={"messages": messages})


def _claim_dump(out: LemmaOut) -> dict[str, Any] | None:
    claim = out.claim
    return claim.model_dump() if claim is not None else None


class Formalizer(BaseAgent):
    role = "formalizer"
    max_tokens_key = "formalize"

    def _request(self, template: str, **context: Any) -> LLMRequest:
        skills = skills_block(
            self.ctx, self.role, str(context.get("statement") or ""), used=(str(context.get("memory_hints") or ""),)
        )
        return self.request(
            render_prompt(template, **context),
            system=render_prompt("formalize_system"),
            extra_system=skills,
        )

    # --- first plan -------------------------------------------------------------------------
    async def formalize(
        self,
        statement: str,
        *,
        known_results: list[KnownResult] | None = None,
        research_gap: str = "",
        memory_hints: str = "",
        contradicted: TheoryState | None = None,
    ) -> Formalization:
        request = self._request(
            "formalize_plan",
            statement=statement,
            known_results=[k.model_dump() for k in known_results or []],
            research_gap=research_gap,
            memory_hints=memory_hints,
            contradicted=contradicted,
        )
        plan = await self._ask(request, FormalPlan, "formal plan")
        notes: list[str] = repair_structure(plan.lemmas)  # by code, before any model round
        designate_root(plan, statement, notes)
        problems = structural_problems([lo.to_node() for lo in plan.lemmas])
        if problems:
            self.log("plan has structural problems; asking once for a repair", problems=problems)
            repair = _follow_up(request, plan, render_prompt("formalize_repair", problems=problems))
            plan = await self._ask(repair, FormalPlan, "repaired formal plan")
            notes += repair_structure(plan.lemmas)
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
        scope = statement_scope(lemmas[root], plan)
        if scope is not None and scope.relation != "same":
            notes.append(f"the main lemma's claim is not the statement ({scope.relation}): {scope.sentence}")
        return Formalization(plan=plan, lemmas=lemmas, notes=notes, statement_scope=scope)

    async def _ask(self, request: LLMRequest, output: type[Any], what: str) -> Any:
        try:
            return await self.ask_structured(request, output)
        except LLMOutputError as exc:
            raise PlanRejected(f"the model's {what} could not be read ({exc.message})") from None

    async def _attach_claims(self, request: LLMRequest, plan: FormalPlan, notes: list[str]) -> dict[str, LemmaNode]:
        """Claims attached, with one repair round for the ones that do not parse, are flagged
        as trivial, or are missing on the main theorem."""
        outs = {lo.id: lo for lo in plan.lemmas}
        lemmas = {lid: lo.to_node() for lid, lo in outs.items()}
        bad = self._claim_problems(outs, lemmas)
        if not bad:
            return lemmas
        self.log("claims to repair; asking once for fixes", claims=bad)
        prompt = render_prompt(
            "formalize_claims_repair",
            problems=[{"lemma_id": k, "reason": v, "claim": json.dumps(_claim_dump(outs[k]))} for k, v in bad.items()],
        )
        try:
            fixes = await self.ask_structured(_follow_up(request, plan, prompt), ClaimFixes)
        except LLMOutputError:
            fixes = ClaimFixes()
        for fix in fixes.fixes:
            if fix.lemma_id in bad:
                outs[fix.lemma_id].claim = fix.claim
                if fix.claim_is_statement is not None:
                    outs[fix.lemma_id].claim_is_statement = fix.claim_is_statement
        still = self._claim_problems(outs, lemmas, only=set(bad))
        for lid, why in still.items():
            node = lemmas[lid]
            if node.claim is not None:
                notes.append(f"claim of lemma {lid} kept as evidence but earns no mechanical level: {why}")
            elif "could not be parsed" in why:
                notes.append(f"claim of lemma {lid} dropped ({why}); the lemma goes on without mechanical checks")
            else:
                notes.append(f"lemma {lid}: {why}")
        return lemmas

    @staticmethod
    def _claim_problems(
        outs: dict[str, LemmaOut], lemmas: dict[str, LemmaNode], only: set[str] | None = None
    ) -> dict[str, str]:
        """Attach every claim (the main theorem's first: it is the reference for the others'
        variable ranges) and say what is wrong with each, by lemma id."""
        order = sorted(outs, key=lambda lid: not outs[lid].is_root)
        root = next((lid for lid in order if outs[lid].is_root), None)
        problems: dict[str, str] = {}
        for lid in order:
            if only is not None and lid not in only:
                continue
            reference = lemmas[root].claim if root is not None and lid != root else None
            reason = attach_claim(lemmas[lid], outs[lid].claim, exact=outs[lid].claim_is_statement, reference=reference)
            if reason:
                problems[lid] = f"the claim could not be parsed: {reason}"
            elif lemmas[lid].claim_flags:
                problems[lid] = "the claim is too trivial to check anything: " + "; ".join(lemmas[lid].claim_flags)
            elif lid == root and lemmas[lid].claim is None:
                problems[lid] = (
                    "the main theorem has no machine-checkable claim; give one if its "
                    "statement can be written in the claim format (null if it cannot)"
                )
        return problems

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
        result = merge_replan(dag, out.lemmas, reopened, refuted_id)
        if not result.problems:
            return result
        repair = _follow_up(request, out, render_prompt("formalize_repair", problems=result.problems))
        try:
            out = await self.ask_structured(repair, Replan)
        except LLMOutputError as exc:
            return Surgery(dag=dict(dag), problems=[f"re-plan reply could not be read ({exc.message})"])
        return merge_replan(dag, out.lemmas, reopened, refuted_id)
