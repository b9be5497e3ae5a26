"""The prose of the paper: one structured LLM call, with a deterministic fallback.

The model writes only title, abstract, introduction, preliminaries, related work, limitations
and the experiment discussion. A reply that is unusable (invalid after the repair round, or
fields too short to be prose, as small local models produce) is replaced field by field by
prose built from the statement itself, and the reason is recorded: the paper is always written.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from eurekaclaw.agents.writer.bibtex import CitePlan
from eurekaclaw.agents.writer.escape import escape_text
from eurekaclaw.agents.writer.experiments import ExperimentView
from eurekaclaw.agents.writer.fragments import statement_tex
from eurekaclaw.agents.writer.honest import check_prose, check_title
from eurekaclaw.agents.writer.results_brief import experiment_brief
from eurekaclaw.agents.writer.title_math import fallback_title
from eurekaclaw.errors import LLMError
from eurekaclaw.skills.prompt_budget import skills_block
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import ExperimentResult, ResearchBrief, TheoryState

if TYPE_CHECKING:
    from eurekaclaw.agents.base import BaseAgent


class PaperProse(BaseModel):
    title: str = Field(description="One-line title, plain text with optional inline math")
    abstract: str = Field(description="80-200 words")
    introduction: str = ""
    preliminaries: str = ""
    related_work: str = ""
    limitations: str = ""
    experiments: str = ""


# Fewer characters than this is not prose (empty strings, "N/A", a lone word).
MIN_CHARS = {"title": 5, "abstract": 60, "introduction": 80, "preliminaries": 20}
MAX_TITLE = 250
ABSTRACT_SNIPPET = 400


def _first_sentence(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = (m.group(1) if m else text).rstrip(".")
    if len(sentence) <= limit:
        return sentence
    cut = sentence[:limit].rsplit(" ", 1)[0]
    # never cut inside inline math
    if cut.count("$") % 2:
        cut = cut[: cut.rfind("$")].rstrip()
    return cut + " ..."


def fallback_prose(theory: TheoryState, plan: CitePlan, experiment: ExperimentView | None) -> dict[str, str]:
    """Prose built from the statement and the theory state only (no model)."""
    informal = theory.informal_statement.strip()
    proved = theory.status == "proved"
    # the user's statement is data: its math typeset, its commands shown as text (fragments.py)
    shown = statement_tex(informal) if informal else "the statement given below"
    title = fallback_title(informal)  # typeset, never cut (title_math.py)
    # a domain's shipped classics are named only where a lemma cites them (not "drawn on" wholesale)
    lemma_keys = {k for node in theory.lemma_dag.values() if (k := plan.resolve(node.citation))}
    keys = [key for key, _ in plan.citable() if key not in plan.shipped_keys or key in lemma_keys]
    lemma_ids = [n.id for n in theory.lemma_dag.values() if not n.is_root]
    established = [lid for lid in lemma_ids if lid in theory.proven_lemmas]
    intro = [f"We study the following statement: {shown}"]
    if theory.research_gap.strip():
        intro.append(escape_text(theory.research_gap.strip()))
    if not lemma_ids:
        intro.append("No decomposition into lemmas was recorded for this statement.")
    elif proved:
        intro.append(
            f"The argument is decomposed into {len(lemma_ids)} lemma(s); the main results section gives the "
            "status of each, as recorded."
        )
    else:
        intro.append(
            f"The statement was decomposed into {len(lemma_ids)} lemma(s), {len(established)} of which have a "
            "recorded proof; the main results section gives the status of each, as recorded."
        )
    restated = {" ".join(t.split()).casefold() for t in (informal, theory.formal_statement) if t.strip()}
    plan_items: list[tuple[str, str]] = []
    for p in theory.proof_plan:
        desc = " ".join(p.description.split())
        if desc and desc.casefold() not in restated and desc.casefold() not in {d.casefold() for _, d in plan_items}:
            plan_items.append((p.provenance, desc))
    if plan_items:
        items = "\n".join(f"\\item ({escape_text(prov)}) {escape_text(desc)}" for prov, desc in plan_items)
        intro.append("The proof plan was:\n\\begin{itemize}\n" + items + "\n\\end{itemize}")
    related = (
        "This work draws on the following references: " + ", ".join(f"\\citet{{{k}}}" for k in keys) + "."
        if keys
        else "No reference from the literature search could be cited for this session."
    )
    prose = {
        "title": title,
        "abstract": f"We study the following statement: {shown}.",
        "introduction": "\n\n".join(intro),
        # empty when there is nothing to say: the section is then omitted
        "preliminaries": "The main statement relies on the assumptions listed below." if theory.assumptions else "",
        "related_work": related,
        "limitations": "What each result rests on is stated in the verification summary.",
        "experiments": "",
    }
    if experiment is not None:
        held = sum(1 for c in experiment.checks if c.held)
        prose["experiments"] = "We compare the measured values with the theoretical bounds" + (
            f": {held} of {len(experiment.checks)} bound comparison(s) held." if experiment.checks else "."
        )
    return prose


def _distinct_plan(theory: TheoryState) -> list[Any]:
    """Proof-plan items once each, without restatements of the theorem itself."""
    restated = {
        " ".join(t.split()).casefold() for t in (theory.informal_statement, theory.formal_statement) if t.strip()
    }
    seen: set[str] = set()
    items = []
    for item in theory.proof_plan:
        key = " ".join(item.description.split()).casefold()
        if key and key not in restated and key not in seen:
            seen.add(key)
            items.append(item)
    return items


def prose_prompt(
    theory: TheoryState,
    plan: CitePlan,
    experiment: ExperimentView | None,
    brief: ResearchBrief | None,
    result: ExperimentResult | None = None,
) -> str:
    lemmas: list[dict[str, Any]] = []
    for node in theory.lemma_dag.values():
        record = theory.proven_lemmas.get(node.id)
        lemmas.append(
            {
                "id": node.id,
                "status": "proved" if record else node.status,
                "level": record.verification_level if record else None,
                "informal": node.informal,
                "statement": node.statement,
            }
        )
    references = [
        {"key": key, "title": p.title, "year": p.year, "abstract": " ".join(p.abstract.split())[:ABSTRACT_SNIPPET]}
        for key, p in plan.citable()
    ]
    gap = theory.research_gap or (brief.gap_analysis if brief else "")
    return render_prompt(
        "writer_prose",
        status=theory.status,
        informal=theory.informal_statement,
        formal=theory.formal_statement,
        assumptions=theory.assumptions,
        research_gap=gap,
        plan=_distinct_plan(theory),
        lemmas=lemmas,
        references=references,
        experiment=experiment_brief(experiment, result),
    )


def usable_fields(reply: PaperProse) -> tuple[dict[str, str], list[str]]:
    """The reply's fields that look like prose, and the names of those that do not."""
    fields: dict[str, str] = {}
    rejected: list[str] = []
    for name, value in reply.model_dump().items():
        text = (value or "").strip()
        too_short = len(text) < MIN_CHARS.get(name, 0)
        if too_short or (name == "title" and len(text) > MAX_TITLE):
            rejected.append(name)
            continue
        fields[name] = text
    return fields, rejected


async def write_prose(
    agent: BaseAgent,
    theory: TheoryState,
    plan: CitePlan,
    experiment: ExperimentView | None,
    brief: ResearchBrief | None,
    result: ExperimentResult | None = None,
) -> tuple[dict[str, str], list[str]]:
    """(prose fields, notes). BudgetExceededError and cancellation propagate."""
    fallback = fallback_prose(theory, plan, experiment)
    prompt = prose_prompt(theory, plan, experiment, brief, result)
    try:
        skills = skills_block(agent.ctx, agent.role, theory.informal_statement or theory.formal_statement)
        request = agent.request(prompt, output=PaperProse, extra_system=skills)
        reply = await agent.ask_structured(request, PaperProse)
    except LLMError as exc:
        reason = (
            f"the model's prose was unusable ({type(exc).__name__}: {exc.message[:200]}); "
            "deterministic prose built from the statement was used instead"
        )
        return fallback, [reason]
    fields, rejected = usable_fields(reply)
    notes = []
    if rejected:
        notes.append(
            "the model's reply had no usable "
            + ", ".join(rejected)
            + "; deterministic prose was used for "
            + ("it" if len(rejected) == 1 else "them")
        )
    prose = {**fallback, **fields}
    if experiment is None:
        prose["experiments"] = ""
    # through the one door: what was proved and how is said by the records, not by the model
    prose, honesty = check_prose(prose, theory, fallback["title"])
    prose, title_notes = check_title(prose, [theory.informal_statement, theory.formal_statement], fallback["title"])
    return prose, notes + honesty + title_notes
