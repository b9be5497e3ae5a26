"""Assembly and the consistency check.

The assembled proof is built by code, not by the model: every lemma in dependency order with
its label, statement, verification level and the proof that was checked, then the main
theorem with its proof. Nothing unchecked is added.

The consistency check has a mechanical part, run first: every lemma a proof cites exists and is
among that lemma's dependencies, every lemma is proven at the level the assembly states, and
no proof cites itself or a lemma relying on it (circular), and every lemma of the DAG is used
by a lemma that depends on it (the Theory stage prunes unused ones before, lemma_use.py). Only then a model is asked, in a
fresh context and shown each lemma's claim and how it was checked, whether this proves the
formal statement under its assumptions. The model's "consistent" upgrades nothing: it can only
let a theorem whose lemmas all passed be called proved. It fails closed: an error or an
unreadable reply is a failure."""

from __future__ import annotations

from dataclasses import dataclass

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.agents.formalize.dag import active_ids, dependants, root_of, topological
from eurekaclaw.agents.theory.lemma_use import mentions
from eurekaclaw.agents.theory.models import ConsistencyVerdict
from eurekaclaw.agents.writer.labels import REF_RE, THEOREM_LABEL, cited_lemma_ids, lemma_label
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import CheckResult, TheoryState

# The label scheme is shared with the prover prompts and the writer (agents/writer/labels.py):
# a proof cites lemma <id> as \ref{lem:<id>}; REF_RE captures <id>.
__all__ = ["REF_RE", "assemble", "structural_issues", "unknown_references"]


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
        parts.append(
            f"\\begin{{lemma}}[{title}]\\label{{{lemma_label(lid)}}}\n{node.statement.strip()}\n\\end{{lemma}}"
        )
        if rec.verification_level == "cited" and node.citation:
            parts.append(f"\\begin{{proof}}\nSee \\cite{{{node.citation}}}.\n\\end{{proof}}")
        else:
            parts.append(f"\\begin{{proof}}\n{rec.proof.strip()}\n\\end{{proof}}")
    main = state.proven_lemmas[root]
    statement = (state.formal_statement or dag[root].statement).strip()
    parts.append(
        f"\\begin{{theorem}}[{root}; {main.verification_level}]\\label{{{THEOREM_LABEL}}}\\label{{{lemma_label(root)}}}\n{statement}\n\\end{{theorem}}"
    )
    parts.append(f"\\begin{{proof}}\n{main.proof.strip()}\n\\end{{proof}}")
    return "\n\n".join(parts) + "\n"


def unknown_references(state: TheoryState, text: str) -> list[str]:
    known = active_ids(state.lemma_dag)
    return sorted({m for m in cited_lemma_ids(text) if m not in known})


@dataclass(frozen=True)
class StructuralIssue:
    text: str
    lemmas: tuple[str, ...] = ()  # whose proofs a repair would rewrite
    circular: bool = False  # a proof citing itself or a lemma relying on it: never proved


def structural_issues(state: TheoryState) -> list[str]:
    """The consistency check's mechanical part (see the module docstring)."""
    return [issue.text for issue in structural_findings(state)]


def structural_findings(state: TheoryState) -> list[StructuralIssue]:
    dag = state.lemma_dag
    active = active_ids(dag)
    issues: list[StructuralIssue] = []
    for lid in sorted(active):
        rec = state.proven_lemmas.get(lid)
        if rec is None:
            issues.append(StructuralIssue(f"lemma {lid} is part of the proof but was not proven"))
            continue
        allowed = _closure(state, lid)
        above = dependants(dag, lid) | {lid}
        for ref in sorted(set(cited_lemma_ids(rec.proof))):
            if ref in above:
                issues.append(
                    StructuralIssue(f"circular: the proof of {lid} cites {ref}, which relies on {lid}", (lid,), True)
                )
            elif ref not in active:
                issues.append(
                    StructuralIssue(f"the proof of {lid} cites {ref}, which is not part of the proof", (lid,))
                )
            elif ref not in allowed:
                issues.append(
                    StructuralIssue(f"the proof of {lid} cites {ref}, which is not among its dependencies", (lid,))
                )
    for lid in sorted(active):
        users = [d for d in active if lid in dag[d].dependencies]
        if dag[lid].is_root or not users:
            continue
        if not any(d in state.proven_lemmas and mentions(state.proven_lemmas[d].proof, lid) for d in users):
            issues.append(
                StructuralIssue(
                    f"lemma {lid} is never used: no proof of {', '.join(sorted(users))} cites it", tuple(sorted(users))
                )
            )
    return issues


def _closure(state: TheoryState, lemma_id: str) -> set[str]:
    """Everything a lemma may cite: its dependencies and theirs."""
    seen: set[str] = set()
    todo = list(state.lemma_dag[lemma_id].dependencies)
    while todo:
        lid = todo.pop()
        if lid in seen or lid not in state.lemma_dag:
            continue
        seen.add(lid)
        todo.extend(state.lemma_dag[lid].dependencies)
    return seen


def checked_sources(state: TheoryState) -> list[dict[str, str]]:
    """Per lemma, its claim and what checked it, for the model that reads the assembly."""
    from eurekaclaw.agents.theory.prover import claim_text

    out = []
    for lid in topological(state.lemma_dag, active_ids(state.lemma_dag)):
        rec = state.proven_lemmas.get(lid)
        node = state.lemma_dag[lid]
        checks = ", ".join(f"{c.checker} {c.verdict}" for c in (rec.checks if rec else [])) or "none"
        out.append(
            {
                "id": lid,
                "claim": claim_text(node.claim) or "(no machine-checkable claim)",
                "level": rec.verification_level if rec else "unproven",
                "checks": checks,
                "formal": (rec.formal_proof or "") if rec else "",
            }
        )
    return out


class ConsistencyChecker(BaseAgent):
    role = "consistency_checker"
    reviews = True
    max_tokens_key = "verifier"

    async def check(self, state: TheoryState, assembled: str) -> CheckResult:
        missing = unknown_references(state, assembled)
        if missing:
            return CheckResult(
                checker="consistency",
                verdict="failed",
                detail="the proof cites lemmas that are not part of it: " + ", ".join(missing),
            )
        issues = structural_issues(state)
        if issues:
            return CheckResult(checker="consistency", verdict="failed", detail="mechanical check: " + "; ".join(issues))
        prompt = render_prompt(
            "theory_consistency",
            formal_statement=state.formal_statement,
            assumptions=state.assumptions,
            assembled=assembled,
            sources=checked_sources(state),
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
        problems = "; ".join(verdict.issues)
        who = " (self-review: the model that wrote the proofs)" if self.ctx.self_review() else ""
        detail = f"mechanical part passed; model{who}: {verdict.verdict} ({flags})" + (
            f": {problems}" if problems else ""
        )
        return CheckResult(
            checker="consistency",
            verdict="passed" if verdict.passed() else "failed",
            detail=detail,
            version=self.identity(),
        )
