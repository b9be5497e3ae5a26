"""How far a revision reaches: prose only, the experiment, or theory for some lemmas.

One small structured model call decides (prompt review_scope.j2); its reply is validated against
the session's records (lemma ids that exist, an experiment the settings allow), and when the reply
is unusable a deterministic reading of the feedback decides instead. Either way the decision only
says what is re-run: levels after a re-run come from the checkers, never from this decision.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.config import Settings
from eurekaclaw.errors import LLMAuthError, LLMFatalError, LLMOutputError, LLMRetryableError
from eurekaclaw.review.agent import review_stage
from eurekaclaw.review.claims import ClaimChecker
from eurekaclaw.review.facts import PaperFacts
from eurekaclaw.templates import render_prompt

Scope = Literal["prose", "experiment", "theory"]

# A flaw in a proof (theory) versus a request for other numbers (experiment); prose otherwise.
_FLAW = re.compile(
    r"\b(wrong|incorrect|invalid|gap|flaw(ed)?|error|mistake|fix|redo|re-?prove|"
    r"does(n't| not) follow|unjustified|fails?)\b",
    re.IGNORECASE,
)
_PROOF = re.compile(r"\b(proof|prove[sd]?|lemma|step)\b", re.IGNORECASE)
_EXPERIMENT = re.compile(
    r"\b(experiments?|simulations?|simulate|horizons?|instances?|seeds?|trials|"
    r"runs)\b",
    re.IGNORECASE,
)
_NEW_NUMBERS = re.compile(
    r"\b(re-?run|run|add|more|increase|longer|larger|another|new|different|"
    r"repeat|redo|extend)\b",
    re.IGNORECASE,
)


class ScopeReply(BaseModel):
    scope: Scope = "prose"
    lemmas: list[str] = Field(default_factory=list)
    experiment: bool = False
    reason: str = ""


class RevisionScope(BaseModel):
    scope: Scope
    stages: list[str]  # in pipeline order; "write" last
    lemmas: list[str] = Field(default_factory=list)  # empty with theory: the whole proof
    reason: str = ""
    decided_by: Literal["model", "rules"] = "model"
    notes: list[str] = Field(default_factory=list)

    def line(self) -> str:
        """What will be re-run and why, shown before anything runs."""
        parts = []
        for stage in self.stages:
            if stage == "theory":
                parts.append("theory (" + (", ".join(self.lemmas) if self.lemmas else "the whole proof") + ")")
            elif stage == "write" and self.scope == "prose":
                parts.append("writer (prose only)")
            else:
                parts.append("writer" if stage == "write" else stage)
        if self.scope != "prose":
            parts.append("evaluation")  # restage.AFTER: the revised paper is scored again
        why = f": {self.reason}" if self.reason else ""
        return f"revision re-runs {' -> '.join(parts)} (decided by {self.decided_by}){why}"


def named_lemmas(facts: PaperFacts, feedback: str) -> list[str]:
    """Lemma ids the feedback names (`L2`, `lem:L2`), in the paper's order."""
    out = []
    for lem in facts.doc.lemmas:
        if re.search(rf"(?<![\w.-]){re.escape(lem.id)}(?![\w-]|[.:]\w)", feedback):
            out.append(lem.id)
    return out


def rule_scope(facts: PaperFacts, feedback: str) -> ScopeReply:
    """The deterministic reading, used when the model's reply is unusable."""
    lemmas = named_lemmas(facts, feedback)
    flaw = bool(_FLAW.search(feedback)) and (bool(_PROOF.search(feedback)) or bool(lemmas))
    experiment = bool(_EXPERIMENT.search(feedback)) and bool(_NEW_NUMBERS.search(feedback))
    if flaw:
        return ScopeReply(
            scope="theory", lemmas=lemmas, experiment=experiment, reason="the feedback points at a flaw in a proof"
        )
    if experiment:
        return ScopeReply(scope="experiment", reason="the feedback asks for other experiments")
    return ScopeReply(scope="prose", reason="the feedback concerns the paper's text")


def validated(
    facts: PaperFacts, feedback: str, reply: ScopeReply, settings: Settings, decided_by: Literal["model", "rules"]
) -> RevisionScope:
    """The reply checked against the records: unknown lemma ids dropped, an experiment the
    settings turn off dropped, a reason claiming more than the records cut (it is shown before
    anything runs), stages in pipeline order."""
    notes: list[str] = []
    known = [lem.id for lem in facts.doc.lemmas]
    lemmas = [lid for lid in dict.fromkeys(reply.lemmas) if lid in known]
    unknown = [lid for lid in reply.lemmas if lid not in known]
    if unknown:
        notes.append(f"lemma id(s) not in the records ignored: {', '.join(unknown)}")
        if not lemmas:
            lemmas = named_lemmas(facts, feedback)  # else the whole proof, which costs the most
    scope: Scope = reply.scope
    experiment = scope == "experiment" or (scope == "theory" and reply.experiment)
    if experiment and settings.experiment_mode == "false":
        notes.append("EXPERIMENT_MODE=false: the experiment is not re-run")
        experiment = False
        if scope == "experiment":
            scope = "prose"
    reason, overclaims = ClaimChecker(facts.doc).check(reply.reason.strip()[:300])
    if overclaims:
        notes.append(
            "the model's reason claimed more than the records and was shortened: "
            + "; ".join(c.correction() for c in overclaims)
        )
    stages = (["theory"] if scope == "theory" else []) + (["experiment"] if experiment else []) + ["write"]
    return RevisionScope(
        scope=scope,
        stages=stages,
        lemmas=lemmas if scope == "theory" else [],
        reason=reason.strip(),
        decided_by=decided_by,
        notes=notes,
    )


def scope_prompt(facts: PaperFacts, feedback: str) -> str:
    lemmas = [{"id": lem.id, "record": facts.record_line(lem.id).split(": ", 1)[-1]} for lem in facts.doc.lemmas]
    experiment = "; ".join(facts.experiment_lines()[:6]) or "none in this session"
    return render_prompt(
        "review_scope",
        theorem_line=facts.theorem_line(),
        statement=facts.doc.theorem_statement,
        lemmas=lemmas,
        experiment=experiment,
        version=facts.version.version,
        feedback=feedback,
    )


async def decide_scope(agent: BaseAgent, facts: PaperFacts, feedback: str) -> RevisionScope:
    """The model's decision, validated; the rules when the reply is unusable or the call failed
    (budget and authentication errors propagate: they end the review)."""
    request = agent.request(
        scope_prompt(facts, feedback), output=ScopeReply, system=render_prompt("review_scope_system"), max_tokens=400
    )
    try:
        with review_stage():
            reply = await agent.ask_structured(request, ScopeReply)
    except (LLMOutputError, LLMRetryableError, LLMFatalError) as exc:
        if isinstance(exc, LLMAuthError):
            raise
        decided = validated(facts, feedback, rule_scope(facts, feedback), agent.ctx.settings, "rules")
        decided.notes.append(f"the model's scope reply was unusable ({exc.message[:120]}); decided by rules")
        return decided
    return validated(facts, feedback, reply, agent.ctx.settings, "model")
