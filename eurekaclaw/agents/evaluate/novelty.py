"""Novelty: embedding distance to the surveyed abstracts, combined with one model judgement.

embedding part = 1 - s/r clipped to [0,1], where s is the mean cosine similarity of the
statement to its TOP_K closest surveyed papers and r the same quantity for the surveyed papers
among themselves (plain 1 - s with fewer than two papers); model part = one structured judgement that sees the statement and
the CLOSEST_SHOWN closest papers. Novelty is their weighted mean when both exist, else whichever
exists, else not applicable.

The model part counts fully only when the judge is shown to be another model than the one that
wrote the proofs. A self-judged opinion (or one whose independence cannot be shown) gets
SELF_JUDGED_WEIGHT of the embedding part's weight, and when it is the only part the whole
dimension's weight is multiplied by SELF_JUDGED_ONLY_FACTOR: a model grading its own result is
the least reliable number in the report.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from eurekaclaw.errors import LLMError, MissingConfigError
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import Bibliography, EvalDimension, Paper, TheoryState

if TYPE_CHECKING:
    from eurekaclaw.config import Settings
    from eurekaclaw.memory.embeddings import Embedder

log = logging.getLogger(__name__)

TOP_K = 3
CLOSEST_SHOWN = 5
ABSTRACT_CHARS = 600
JUDGEMENT_MAX_TOKENS = 1024
SELF_JUDGED_WEIGHT = 0.25
SELF_JUDGED_ONLY_FACTOR = 0.5


def judge_independence(judge: str, provers: set[str]) -> str:
    """ "independent", "self" or "unknown": whether `judge` ("backend:model") is another model
    than every known prover identity (full identities, or bare model names from the LLM log)."""
    if not judge or not provers:
        return "unknown"
    model = judge.split(":", 1)[-1]
    if judge in provers or model in provers:
        return "self"
    return "independent"


class NoveltyJudgement(BaseModel):
    score: float = Field(ge=0.0, le=1.0)
    rationale: str = ""
    closest_paper_id: str = ""


def statement_text(theory: TheoryState) -> str:
    return "\n".join(t for t in (theory.informal_statement, theory.formal_statement) if t.strip())


def _paper_text(paper: Paper) -> str:
    return f"{paper.title}. {paper.abstract}".strip()


def closest_papers(
    statement: str, papers: list[Paper], embedder: Embedder
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Papers sorted by cosine similarity to the statement, and the embedding inputs."""
    # entries no literature service could find are not literature
    usable = [p for p in papers if (p.abstract.strip() or p.title.strip()) and p.verification != "not_found"]
    if not usable or not statement.strip():
        return [], {}
    vectors = embedder.embed([statement] + [_paper_text(p) for p in usable])
    sims = vectors[1:] @ vectors[0]
    ranked = sorted(zip(usable, (float(s) for s in sims), strict=True), key=lambda x: -x[1])
    closest = [
        {
            "paper_id": p.paper_id,
            "title": p.title,
            "year": p.year,
            "similarity": round(s, 6),
            "abstract": " ".join(p.abstract.split())[:ABSTRACT_CHARS],
        }
        for p, s in ranked
    ]
    top = [round(s, 6) for _, s in ranked[:TOP_K]]  # the figures shown in `closest`
    mean_top = sum(top) / len(top)
    reference = _reference_similarity(vectors[1:])
    if reference is not None and reference > 0:
        novelty_value = 1.0 - mean_top / reference
        basis = "relative to the surveyed papers' similarity to each other"
    else:
        novelty_value = 1.0 - mean_top
        basis = "absolute (fewer than two surveyed papers to calibrate against)"
    inputs = {
        "embedder": embedder.name,
        "papers_compared": len(usable),
        "top_k": TOP_K,
        "mean_top_k_similarity": round(mean_top, 6),
        "reference_similarity": None if reference is None else round(reference, 6),
        "embedding_basis": basis,
        "embedding_novelty": round(min(1.0, max(0.0, novelty_value)), 6),
        "closest": [{k: c[k] for k in ("paper_id", "title", "similarity")} for c in closest[:CLOSEST_SHOWN]],
    }
    return closest, inputs


def _reference_similarity(paper_vectors: Any) -> float | None:
    """How close surveyed papers are to each other: the mean, over papers, of the mean cosine
    similarity to their TOP_K nearest other papers. It calibrates the statement's similarity
    for any embedder (hashed features give far lower cosines than a sentence model)."""
    n = len(paper_vectors)
    if n < 2:
        return None
    sims = paper_vectors @ paper_vectors.T
    k = min(TOP_K, n - 1)
    per_paper = []
    for i in range(n):
        others = sorted((float(sims[i, j]) for j in range(n) if j != i), reverse=True)[:k]
        per_paper.append(sum(others) / k)
    return sum(per_paper) / n


def default_embedder(settings: Settings) -> tuple[Embedder | None, str]:
    """The configured embedder, or (None, reason) when it cannot be loaded."""
    # numpy comes with the embeddings: loaded when a paper is scored, not when the CLI starts
    from eurekaclaw.memory.embeddings import get_embedder

    try:
        return get_embedder(settings.eurekaclaw_embedder), ""
    except MissingConfigError as exc:
        return None, f"embeddings unavailable ({exc.user_message()})"


async def judge(llm: SessionLLM, theory: TheoryState, closest: list[dict[str, Any]]) -> NoveltyJudgement:
    prompt = render_prompt(
        "evaluate_novelty",
        status=theory.status,
        informal=theory.informal_statement,
        formal=theory.formal_statement,
        plan=theory.proof_plan,
        closest=closest[:CLOSEST_SHOWN],
    )
    request = LLMRequest(
        role="evaluate",
        stage="evaluate",
        system_stable=render_prompt("evaluate_system"),
        messages=[Message(role="user", content=prompt)],
        output=NoveltyJudgement,
        max_tokens=JUDGEMENT_MAX_TOKENS,
    )
    return await llm.structured(request, NoveltyJudgement)


async def novelty(
    theory: TheoryState | None,
    bib: Bibliography | None,
    weight: float,
    *,
    llm: SessionLLM | None,
    embedder: Embedder | None,
    embedder_note: str = "",
    provers: set[str] | None = None,
) -> EvalDimension:
    """`provers`: identities of the model(s) that wrote the proofs, to tell whether the judge
    is independent of them."""
    name = "novelty"
    if theory is None or not statement_text(theory):
        return EvalDimension(name=name, score=None, weight=weight, explanation="not applicable: no statement")
    papers = bib.papers if bib else []
    inputs: dict[str, Any] = {}
    notes: list[str] = []
    closest: list[dict[str, Any]] = []
    emb_score: float | None = None
    if embedder is None:
        notes.append(embedder_note or "no embedder")
        # the model still sees the surveyed papers, unranked
        closest = [
            {
                "paper_id": p.paper_id,
                "title": p.title,
                "year": p.year,
                "similarity": None,
                "abstract": " ".join(p.abstract.split())[:ABSTRACT_CHARS],
            }
            for p in papers[:CLOSEST_SHOWN]
        ]
    elif not papers:
        notes.append("no surveyed papers to compare with")
    else:
        closest, emb_inputs = closest_papers(statement_text(theory), papers, embedder)
        inputs.update(emb_inputs)
        emb_score = emb_inputs.get("embedding_novelty")
    llm_score: float | None = None
    independence = "unknown"
    if llm is None:
        notes.append("no LLM: novelty from embedding distance only")
    else:
        judge_id = _identity(llm)
        independence = judge_independence(judge_id, provers or set())
        inputs["judge"] = judge_id
        inputs["provers"] = sorted(provers or ())
        inputs["judge_independence"] = independence
        try:
            verdict = await judge(llm, theory, closest)
            llm_score = verdict.score
            inputs["llm_judgement"] = verdict.model_dump()
        except LLMError as exc:
            notes.append(f"the model's novelty judgement was unusable ({type(exc).__name__})")
    if llm_score is None and emb_score is None:
        return EvalDimension(
            name=name,
            score=None,
            weight=weight,
            inputs=inputs,
            explanation="not applicable: " + "; ".join(notes),
        )
    llm_weight = 1.0 if independence == "independent" else SELF_JUDGED_WEIGHT
    weighted = [(s, w) for s, w in ((emb_score, 1.0), (llm_score, llm_weight)) if s is not None]
    score = sum(s * w for s, w in weighted) / sum(w for _, w in weighted)
    bits = []
    if emb_score is not None:
        bits.append(f"embedding novelty {emb_score:.3f}")
    if llm_score is not None:
        label = {
            "independent": "independent model judgement",
            "self": "self-judged (the model that wrote the proofs) model judgement",
            "unknown": "model judgement not shown independent of the prover",
        }[independence]
        bits.append(
            f"{label} {llm_score:.3f}"
            + ("" if independence == "independent" else f", counted at weight {SELF_JUDGED_WEIGHT}")
        )
    inputs["model_part_weight"] = llm_weight if llm_score is not None else None
    inputs["combination"] = "weighted mean of the available parts (embedding part weight 1)"
    if llm_score is not None and emb_score is None and independence != "independent":
        weight = weight * SELF_JUDGED_ONLY_FACTOR
        notes.append(f"dimension weight x{SELF_JUDGED_ONLY_FACTOR}: the only part is a self-judged opinion")
    return EvalDimension(
        name=name,
        score=round(score, 6),
        weight=weight,
        inputs=inputs,
        explanation="; ".join(bits + notes),
    )


def _identity(llm: Any) -> str:
    try:
        return str(llm.identity())
    except Exception:  # a stand-in client without an identity: independence unknown
        return ""
