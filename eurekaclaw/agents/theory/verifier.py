"""The Verifier: an independent review in a fresh context. It sees the lemma, the statements of
its dependencies and the whole proof — never the prover's conversation or self-assessment —
and returns a verdict, categorised errors and a confidence. Its reading is fail-closed: a
proof passes only with verdict "pass", no major error and enough confidence."""

from __future__ import annotations

from eurekaclaw.agents.theory.models import ReviewVerdict
from eurekaclaw.agents.theory.prover import claim_text, refuted_context
from eurekaclaw.agents.theory.run import RunAgent
from eurekaclaw.agents.theory.tool_answer import ask_with_tools
from eurekaclaw.skills.prompt_budget import lemma_task, skills_block
from eurekaclaw.templates import render_prompt
from eurekaclaw.tools.roles import role_tool_names

MIN_CONFIDENCE = 0.5


def review_passed(review: ReviewVerdict) -> bool:
    return review.verdict == "pass" and not review.major_errors() and review.confidence >= MIN_CONFIDENCE


def review_text(review: ReviewVerdict) -> str:
    """The review as the Refiner and the failure log read it."""
    lines = [f"verdict: {review.verdict} (confidence {review.confidence:.2f})"]
    if review.summary:
        lines.append(review.summary)
    for e in review.errors:
        where = f" at {e.location}" if e.location else ""
        lines.append(f"- [{e.category}, {e.severity}]{where}: {e.description}")
    if review.verdict == "pass" and not review.major_errors() and review.confidence < MIN_CONFIDENCE:
        lines.append(f"- the reviewer's confidence is below {MIN_CONFIDENCE}: not accepted")
    return "\n".join(lines)


def review_category(review: ReviewVerdict) -> str:
    major = review.major_errors()
    if major:
        return major[0].category
    if review.errors:
        return review.errors[0].category
    return "gap" if review.verdict == "fail" else "other"


class Verifier(RunAgent):
    role = "verifier"
    reviews = True
    max_tokens_key = "verifier"

    async def review(self, lemma_id: str, proof: str, formal_proof: str | None = None) -> ReviewVerdict:
        """`formal_proof`: Coq source sent along with the proof. The kernel checks the proof;
        the reviewer checks that its theorem says what the lemma says."""
        node = self.run.node(lemma_id)
        deps = [{"id": d["id"], "statement": d["statement"]} for d in self.run.deps_context(lemma_id)]
        prompt = render_prompt(
            "theory_verifier",
            assumptions=self.run.state.assumptions,
            lemma=node,
            claim=claim_text(node.claim),
            deps=deps,
            proof=proof,
            formal_proof=formal_proof or "",
            refuted=refuted_context(self.run, lemma_id),
        )
        skills = skills_block(self.ctx, self.role, lemma_task(node.informal, node.statement))
        request = self.request(
            prompt, system=render_prompt("theory_verifier_system"), lemma_id=lemma_id, extra_system=skills
        )
        # The reviewer may compute (symbolic) to check a step; its verdict is still only a review.
        return await ask_with_tools(self, request, ReviewVerdict, role_tool_names(self.ctx.tools, self.role))
