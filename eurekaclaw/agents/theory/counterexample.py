"""CounterexampleSearcher: the model proposes concrete values for the lemma's claim, and each
proposal is evaluated exactly by the verification layer. Only a proposal at which the claim
mechanically fails is a counterexample; what the model says about it is not evidence."""

from __future__ import annotations

import logging

from eurekaclaw.agents.theory.mechanical import evaluate
from eurekaclaw.agents.theory.models import CounterexampleProposal
from eurekaclaw.agents.theory.prover import claim_text
from eurekaclaw.agents.theory.run import RunAgent, summarise
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import CheckResult, Counterexample

log = logging.getLogger(__name__)

MAX_CANDIDATES = 5


def from_check(lemma_id: str, check: CheckResult) -> Counterexample:
    """A confirmed counterexample reported by a mechanical checker (falsifier, SMT)."""
    return Counterexample(
        lemma_id=lemma_id,
        assignment=dict(check.counterexample or {}),
        description=check.detail,
        checker=check.checker,
        confirmed=True,
    )


class CounterexampleSearcher(RunAgent):
    role = "counterexample_searcher"
    max_tokens_key = "verifier"

    async def search(self, lemma_id: str, why: str = "") -> Counterexample | None:
        node = self.run.node(lemma_id)
        if node.claim is None:
            return None  # nothing a machine could evaluate: no evidence is possible
        prompt = render_prompt(
            "theory_counterexample",
            lemma=node,
            claim=node.claim,
            claim_text=claim_text(node.claim),
            why=summarise(why, 1500),
        )
        request = self.request(prompt, system=render_prompt("theory_counterexample_system"), lemma_id=lemma_id)
        try:
            proposal = await self.ask_structured(request, CounterexampleProposal)
        except LLMOutputError as exc:
            self.log(f"counterexample proposal unreadable: {exc.message}", lemma_id=lemma_id)
            return None
        for cand in proposal.candidates[:MAX_CANDIDATES]:
            ev = evaluate(node.claim, cand.assignment)
            if ev.holds is False:
                return Counterexample(
                    lemma_id=lemma_id,
                    assignment=dict(cand.assignment),
                    description=f"{ev.detail} {cand.reasoning}".strip(),
                    checker="counterexample_search+exact_evaluation",
                    confirmed=True,
                    violation=ev.slack,
                )
            log.info("proposal %s for %s does not refute the claim: %s", cand.assignment, lemma_id, ev.detail)
        return None
