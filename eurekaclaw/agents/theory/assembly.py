"""Assembly and the consistency check.

The assembled proof is built by code, not by the model: every lemma in dependency order with
its label, statement, verification level and the proof that was checked, then the main
theorem with its proof. Nothing unchecked is added. The consistency check then asks, in a fresh
context, whether this proves the formal statement under its assumptions and uses every lemma it
cites correctly; a reference to an unknown label fails it by machine before any model is asked.
It fails closed: an error or an unreadable reply is a failure."""

from __future__ import annotations

import re

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.agents.formalize.dag import active_ids, root_of, topological
from eurekaclaw.agents.theory.models import ConsistencyVerdict
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import CheckResult, TheoryState
from eurekaclaw.types.tasks import Task, TaskResult

REF_RE = re.compile(r"\\(?:c|auto|eq)?ref\{lem:([^}]+)\}")


def assemble(state: TheoryState) -> str:
    dag = state.lemma_dag
    root = root_of(dag)
    assert root is not None
    order = [lid for lid in topological(dag, active_ids(dag)) if lid != root]
    parts = [
        "% Assembled by EurekaClaw from the lemma proofs that passed their checks,\n"
        "% in dependency order. Each lemma records how it was verified."
    ]
    for lid in order:
        node, rec = dag[lid], state.proven_lemmas[lid]
        title = f"{lid}; {rec.verification_level}"
        parts.append(f"\\begin{{lemma}}[{title}]\\label{{lem:{lid}}}\n{node.statement.strip()}\n\\end{{lemma}}")
        if rec.verification_level == "cited" and node.citation:
            parts.append(f"\\begin{{proof}}\nSee \\cite{{{node.citation}}}.\n\\end{{proof}}")
        else:
            parts.append(f"\\begin{{proof}}\n{rec.proof.strip()}\n\\end{{proof}}")
    main = state.proven_lemmas[root]
    statement = (state.formal_statement or dag[root].statement).strip()
    parts.append(
        f"\\begin{{theorem}}[{root}; {main.verification_level}]\\label{{lem:{root}}}\n{statement}\n\\end{{theorem}}"
    )
    parts.append(f"\\begin{{proof}}\n{main.proof.strip()}\n\\end{{proof}}")
    return "\n\n".join(parts) + "\n"


def unknown_references(state: TheoryState, text: str) -> list[str]:
    known = active_ids(state.lemma_dag)
    return sorted({m for m in REF_RE.findall(text) if m not in known})


class ConsistencyChecker(BaseAgent):
    role = "consistency_checker"
    max_tokens_key = "verifier"

    async def execute(self, task: Task) -> TaskResult:
        state = self.ctx.bus.get_theory_state()
        if state is None or not state.assembled_proof:
            return TaskResult(success=False, error="no assembled proof")
        check = await self.check(state, state.assembled_proof)
        return TaskResult(success=check.verdict == "passed", summary=check.detail)

    async def check(self, state: TheoryState, assembled: str) -> CheckResult:
        missing = unknown_references(state, assembled)
        if missing:
            return CheckResult(
                checker="consistency",
                verdict="failed",
                detail="the proof cites lemmas that are not part of it: " + ", ".join(missing),
            )
        prompt = render_prompt(
            "theory_consistency",
            formal_statement=state.formal_statement,
            assumptions=state.assumptions,
            assembled=assembled,
        )
        request = self.request(prompt, system=render_prompt("theory_consistency_system"))
        try:
            verdict = await self.ask_structured(request, ConsistencyVerdict)
        except LLMOutputError as exc:
            return CheckResult(
                checker="consistency",
                verdict="error",
                detail=f"the consistency reply could not be read ({exc.message}); not accepted",
            )
        flags = (
            f"proves statement: {verdict.proves_statement}; assumptions respected: "
            f"{verdict.assumptions_respected}; cited lemmas used correctly: "
            f"{verdict.cited_lemmas_used_correctly}"
        )
        issues = "; ".join(verdict.issues)
        detail = f"{verdict.verdict} ({flags})" + (f": {issues}" if issues else "")
        return CheckResult(
            checker="consistency", verdict="passed" if verdict.passed() else "failed", detail=detail
        )
