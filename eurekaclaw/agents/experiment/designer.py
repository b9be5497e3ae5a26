"""ExperimentDesigner: asks the model for a declarative experiment spec (domains with a simulator)
or for a small sandboxed program (domains without one).

Spec mode: the reply must validate against the backend's spec model (SessionLLM.structured
already gives the model one repair round for schema errors); then the backend's own limits and
the bound expressions are checked. Problems get one repair round with the error list; after that
the backend's deterministic default spec is used and the reason recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.agents.experiment.expr import ExpressionError, compile_expression
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.llm.types import Message
from eurekaclaw.skills.prompt_budget import skills_block
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import LemmaNode, TheoryState

MAX_LEMMAS_SHOWN = 30
MAX_TEXT = 1500


class CodeBound(BaseModel):
    name: str
    expression: str = Field(description="bound in T and the listed variables")
    direction: Literal["upper", "lower"] = "upper"
    asymptotic: bool = False
    rate: Literal["log", "sqrt", "sqrt_log", "linear"] | None = None
    series: list[str] = Field(default_factory=list, description="series names it applies to (empty: all)")
    lemma_id: str | None = None


class CodeExperiment(BaseModel):
    rationale: str = ""
    code: str = Field(default="", description="Python program printing one JSON object; empty if nothing to test")
    variables: dict[str, float] = Field(default_factory=dict)
    bounds: list[CodeBound] = Field(default_factory=list)


@dataclass
class Design:
    spec: Any
    source: Literal["designer", "repaired", "default"]
    notes: list[str] = field(default_factory=list)  # internals for the record, never the paper


def bound_sources(backend: Any, spec: Any) -> dict[str, str]:
    """Where each named known bound of the spec comes from (the paper names it), from the
    backend's guide; {} when the backend offers none."""
    guide = backend.spec_guide() if hasattr(backend, "spec_guide") else {}
    known = guide.get("known_bounds", {}) if isinstance(guide, dict) else {}
    out = {}
    for b in getattr(spec, "bounds", []) or []:
        meta = known.get(getattr(b, "known", None) or "")
        if isinstance(meta, dict) and meta.get("source"):
            out[str(b.name)] = str(meta["source"])
    return out


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def lemma_view(lemma: LemmaNode) -> dict[str, Any]:
    claim = None
    if lemma.claim is not None:
        parts = [f"conclusion: {lemma.claim.conclusion}"]
        if lemma.claim.assumptions:
            parts.append("assumptions: " + "; ".join(lemma.claim.assumptions))
        if lemma.claim.variables:
            parts.append("variables: " + ", ".join(f"{v.name} ({v.domain})" for v in lemma.claim.variables))
        claim = " | ".join(parts)
    return {"id": lemma.id, "status": lemma.status, "statement": _clip(lemma.statement, 600), "claim": claim}


def theorem_text(theory: TheoryState) -> str:
    return _clip(theory.formal_statement or theory.informal_statement or "(no statement)")


def expression_errors(bounds: list[Any], variables: list[str]) -> list[str]:
    errors = []
    for b in bounds:
        if not getattr(b, "expression", None):
            continue
        try:
            compile_expression(b.expression, [*variables, "T"], relation=False)
        except ExpressionError as exc:
            errors.append(f"bound {b.name}: {exc}")
    return errors


class ExperimentDesigner(BaseAgent):
    role = "experiment_designer"

    def _context(self, theory: TheoryState) -> dict[str, Any]:
        lemmas = [lemma_view(n) for n in list(theory.lemma_dag.values())[:MAX_LEMMAS_SHOWN]]
        return {
            "theorem": theorem_text(theory),
            "assumptions": theory.assumptions[:20],
            "lemmas": lemmas,
            "domain": self.ctx.domain,
        }

    def validate(self, spec: Any, backend: Any) -> list[str]:
        prepared = backend.prepare(spec)
        return backend.check(prepared) + expression_errors(prepared.bounds, backend.variable_names())

    async def design_spec(self, theory: TheoryState, backend: Any) -> Design:
        model = backend.spec_model
        prompt = render_prompt(
            "experiment_designer_user", guide=json.dumps(backend.spec_guide(), indent=1), **self._context(theory)
        )
        skills = skills_block(self.ctx, self.role, theorem_text(theory))
        request = self.request(prompt, output=model, extra_system=skills)
        try:
            spec = await self.ask_structured(request, model)
        except LLMOutputError as exc:
            return self._fallback(backend, f"the designer's reply did not match the spec schema ({exc.message})")
        errors = self.validate(spec, backend)
        if not errors:
            return Design(backend.prepare(spec), "designer")
        self.log("spec rejected: " + "; ".join(errors))
        repair = request.model_copy(
            update={
                "messages": [
                    Message(role="user", content=prompt),
                    Message(role="assistant", content=spec.model_dump_json()),
                    Message(role="user", content=render_prompt("experiment_designer_repair", errors=errors)),
                ]
            }
        )
        try:
            fixed = await self.ask_structured(repair, model)
        except LLMOutputError as exc:
            return self._fallback(
                backend, f"spec invalid ({'; '.join(errors)}) and the repair did not parse ({exc.message})"
            )
        still = self.validate(fixed, backend)
        if still:
            return self._fallback(backend, f"spec still invalid after one repair: {'; '.join(still)}")
        return Design(backend.prepare(fixed), "repaired", [f"first spec rejected: {'; '.join(errors)}"])

    def _fallback(self, backend: Any, reason: str) -> Design:
        self.log(f"default experiment spec used: {reason}")
        return Design(backend.default_spec(), "default", [f"default spec used: {reason}"])

    async def design_code(
        self, theory: TheoryState, *, cpu_seconds: int, memory_mb: int, previous_error: str = ""
    ) -> CodeExperiment | None:
        """A sandboxed program and the bounds to check, or None when the reply is unusable."""
        prompt = render_prompt(
            "experiment_designer_code",
            cpu_seconds=cpu_seconds,
            memory_mb=memory_mb,
            previous_error=_clip(previous_error, 3000),
            **self._context(theory),
        )
        try:
            return await self.ask_structured(self.request(prompt, output=CodeExperiment), CodeExperiment)
        except LLMOutputError as exc:
            self.log(f"code experiment reply unusable: {exc.message}")
            return None
