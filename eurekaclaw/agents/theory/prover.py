"""The proof writers: Prover (a first proof of a lemma) and Refiner (a targeted repair of one
error, or after stagnation a broad repair: a different approach or a split into sub-lemmas).

Both see the lemma, its dependencies (full statements, summarised proofs), the last failures
for this lemma, relevant skills and memories. The domain plugin's tools, when there are any,
are offered to the Prover through the tool loop, and the tools it used are recorded; the
session's `symbolic` tool (and the web search, when configured) to both (tools/roles.py)."""

from __future__ import annotations

from typing import Any

from eurekaclaw.agents.formalize.memory_hints import memory_hints
from eurekaclaw.agents.theory.mechanical import coq_available, coq_statement_for
from eurekaclaw.agents.theory.models import BroadRepair, ProofAttempt
from eurekaclaw.agents.theory.run import RunAgent, TheoryRun, summarise
from eurekaclaw.agents.theory.skills import Skills, domain_tool_names, skills_for
from eurekaclaw.agents.theory.tool_answer import ask_with_tools
from eurekaclaw.llm.types import LLMRequest
from eurekaclaw.templates import render_prompt
from eurekaclaw.tools.roles import role_tool_names
from eurekaclaw.types.artifacts import Claim, FailedAttempt

FAILURES_SHOWN = 3
FAILURE_TEXT_CHARS = 1500


def claim_text(claim: Claim | None) -> str:
    if claim is None:
        return ""
    variables = ", ".join(f"{v.name} ({v.domain})" for v in claim.variables)
    given = f" given {'; '.join(claim.assumptions)}" if claim.assumptions else ""
    return f"for {variables or 'the variables'}{given}: {claim.conclusion}"


def failure_view(f: FailedAttempt) -> dict[str, Any]:
    return {
        "attempt": f.attempt,
        "category": f.error_category,
        "text": summarise(f.verifier_text, FAILURE_TEXT_CHARS),
    }


async def _memories(run: TheoryRun, lemma_id: str) -> str:
    """Memory hints for a lemma, looked up once per lemma and run (they do not change)."""
    if lemma_id not in run.memory_hints:
        run.memory_hints[lemma_id] = await memory_hints(run.ctx, run.node(lemma_id).statement)
    return run.memory_hints[lemma_id]


def refuted_context(run: TheoryRun, lemma_id: str) -> list[dict[str, Any]]:
    """What was refuted before this lemma took its place, with the counterexample: a
    replacement must not repeat it, and its reviewer must know what to look for."""
    node = run.node(lemma_id)
    out = []
    for cx in run.state.counterexamples:
        if cx.lemma_id in (node.replaces, node.parent) or (node.replaces and cx.lemma_id == lemma_id):
            values = ", ".join(f"{k} = {v}" for k, v in cx.assignment.items()) or "(no values)"
            out.append(
                {
                    "lemma_id": cx.lemma_id,
                    "statement": cx.statement,
                    "claim": claim_text(cx.claim),
                    "values": values,
                    "description": summarise(cx.description, 400),
                }
            )
    return out


async def lemma_context(run: TheoryRun, lemma_id: str) -> dict[str, Any]:
    """What every proof writer is told about a lemma."""
    node = run.node(lemma_id)
    state = run.state
    # a lemma whose formal proof was dropped is not asked for one again (formal_attempt.py)
    closed = lemma_id in run.formal_closed
    coq = coq_statement_for(node.claim) if coq_available() and not closed else None
    return {
        "formal_statement": state.formal_statement,
        "assumptions": state.assumptions,
        "lemma": node,
        "claim": claim_text(node.claim),
        "deps": run.deps_context(lemma_id),
        "failures": [failure_view(f) for f in run.failures(lemma_id)[-FAILURES_SHOWN:]],
        "memories": await _memories(run, lemma_id),
        "refuted": refuted_context(run, lemma_id),
        "want_formal": coq is not None,
        "coq_statement": coq or "",
    }


class _ProofWriter(RunAgent):
    max_tokens_key = "prover"
    system_template = "theory_prover_system"

    def __init__(self, run: TheoryRun) -> None:
        super().__init__(run)
        self.tools_used: list[str] = []

    def _skills(self, lemma_id: str) -> Skills:
        skills = skills_for(self.ctx, self.run.node(lemma_id), self.role, self.run.memory_hints.get(lemma_id, ""))
        self.run.record_skills(lemma_id, skills.names)
        return skills

    def _request(self, lemma_id: str, prompt: str, skills: Skills) -> LLMRequest:
        return self.request(
            prompt,
            system=render_prompt(self.system_template),
            extra_system=skills.block,
            lemma_id=lemma_id,
        )


class Prover(_ProofWriter):
    role = "prover"

    async def write(self, lemma_id: str) -> ProofAttempt:
        context = await lemma_context(self.run, lemma_id)
        request = self._request(lemma_id, render_prompt("theory_prover", **context), self._skills(lemma_id))
        tools = domain_tool_names(self.ctx) + role_tool_names(self.ctx.tools, self.role)
        return await ask_with_tools(self, request, ProofAttempt, tools, self.tools_used)


class Refiner(_ProofWriter):
    role = "refiner"
    system_template = "theory_refiner_system"

    async def targeted(self, lemma_id: str, proof: str, failure: FailedAttempt) -> ProofAttempt:
        context = await lemma_context(self.run, lemma_id)
        prompt = render_prompt("theory_refiner_targeted", proof=proof, failure=failure_view(failure), **context)
        request = self._request(lemma_id, prompt, self._skills(lemma_id))
        return await ask_with_tools(
            self, request, ProofAttempt, role_tool_names(self.ctx.tools, self.role), self.tools_used
        )

    async def broad(self, lemma_id: str, proof: str, category: str, can_split: bool) -> BroadRepair:
        context = await lemma_context(self.run, lemma_id)
        prompt = render_prompt(
            "theory_refiner_broad",
            proof=proof,
            category=category,
            can_split=can_split,
            existing_ids=sorted(self.run.state.lemma_dag),
            **context,
        )
        request = self._request(lemma_id, prompt, self._skills(lemma_id))
        return await ask_with_tools(
            self, request, BroadRepair, role_tool_names(self.ctx.tools, self.role), self.tools_used
        )
