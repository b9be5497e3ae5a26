"""Questions about a finished paper: one structured call, then the answer is held to the records.

The model's answer passes the one door for model text (eurekaclaw/model_text) before it is shown:
LaTeX that JSON decoding turned into control characters is restored, and no sentence of it may say
how anything was checked or state a proof status (such a sentence is removed, true or not, and
the record of the result it spoke of, the main theorem when it names none, is shown instead).
Every part of the paper it cites must exist (unknown ones are dropped with a note). Every cited
lemma's record line is appended by us, not by the model.
The question, the model's own words and what was shown are all kept in review/history.jsonl.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.model_text import for_display
from eurekaclaw.review.agent import review_stage
from eurekaclaw.review.claims import ALL, THEOREM, ClaimChecker
from eurekaclaw.review.facts import PROOF_EXCERPT, PaperFacts, paper_markdown
from eurekaclaw.review.history import ReviewStore
from eurekaclaw.templates import render_prompt

HISTORY_TURNS = 3
MAX_QUESTION = 4000


class QAReply(BaseModel):
    answer: str
    cites: list[str] = Field(default_factory=list)
    answerable: bool = True


@dataclass
class Answer:
    question: str
    version: int
    raw: str  # the model's words
    shown: str  # after the checks
    sections: list[str] = field(default_factory=list)
    lemmas: list[str] = field(default_factory=list)
    theorem: bool = False
    records: list[str] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answerable: bool = True

    def as_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "version": self.version,
            "answer": self.shown,
            "model_answer": self.raw,
            "cites": {"sections": self.sections, "lemmas": self.lemmas, "theorem": self.theorem},
            "records": self.records,
            "corrections": self.corrections,
            "notes": self.notes,
            "answerable": self.answerable,
        }

    def text(self) -> str:
        """The answer as the terminal shows it: the checked answer, then where it comes from."""
        parts = [self.shown.strip() or "(nothing of the answer could be shown; see the corrections)"]
        if self.corrections:
            parts.append("Corrected from the session's records:\n" + "\n".join(f"- {c}" for c in self.corrections))
        cites = [f"section {s}" for s in self.sections] + (["the main statement"] if self.theorem else [])
        cites += [f"lemma {lid}" for lid in self.lemmas]
        if cites:
            parts.append("Cites: " + ", ".join(cites))
        if self.records:
            parts.append("Records:\n" + "\n".join(f"- {r}" for r in self.records))
        if self.notes:
            parts.append("Notes:\n" + "\n".join(f"- {n}" for n in self.notes))
        return "\n\n".join(parts)


def _resolve_cite(facts: PaperFacts, cite: str) -> tuple[str, str] | None:
    """("section", name) | ("lemma", id) | ("theorem", "") for a citation the paper has."""
    text = cite.strip().strip("`")
    ref = re.fullmatch(r"\\(?:ref|cref|autoref)\{(.+)\}", text)
    if ref:
        text = ref.group(1)
    spaced = re.fullmatch(r"(section|sec\.?|lemma|lem\.?|theorem|thm\.?)\s+(.+)", text, re.IGNORECASE)
    if spaced:  # "Lemma L2", "Section introduction"
        text = f"{spaced.group(1).rstrip('.')}:{spaced.group(2)}"
    kind, _, rest = text.partition(":")
    kind = kind.strip().casefold()
    sections = facts.sections()
    if kind in ("lemma", "lem") and rest.strip() in facts.lemmas():
        return "lemma", rest.strip()
    if kind in ("section", "sec") and rest.strip().casefold().replace(" ", "_") in sections:
        return "section", rest.strip().casefold().replace(" ", "_")
    if text.casefold().replace(" ", "_") in sections:
        return "section", text.casefold().replace(" ", "_")
    if kind in ("theorem", "thm", "conjecture") or text.casefold() in ("theorem", "main theorem", "main statement"):
        return "theorem", ""
    labels = facts.doc.labels
    if labels is not None:
        label = labels.resolve(text)
        if label is not None:
            if labels.is_theorem(label):
                return "theorem", ""
            lid = labels.labels.get(label, "")
            if lid in facts.lemmas():
                return "lemma", lid
    return None


def ask_prompt(facts: PaperFacts, question: str, history: list[dict[str, Any]]) -> str:
    lemmas = [
        {
            "id": lem.id,
            "record": facts.record_line(lem.id),
            "statement": lem.statement,
            "proof": (lem.proof or "")[:PROOF_EXCERPT],
        }
        for lem in facts.doc.lemmas
    ]
    turns = [
        {"question": h.get("question", ""), "answer": h.get("answer", "")}
        for h in history
        if h.get("kind") == "question"
    ][-HISTORY_TURNS:]
    return render_prompt(
        "review_ask",
        version=facts.version.version,
        title=facts.doc.prose.get("title", ""),
        theorem_line=facts.theorem_line(),
        statement=facts.doc.theorem_statement,
        assumptions=facts.doc.assumptions,
        sections=facts.sections(),
        markdown="" if facts.prose_recorded else paper_markdown(facts),
        lemmas=lemmas,
        experiment=facts.experiment_lines(),
        history=turns,
        question=question,
    )


def check_answer(facts: PaperFacts, question: str, reply: QAReply) -> Answer:
    raw = for_display(reply.answer)
    answer = Answer(question=question, version=facts.version.version, raw=raw, shown=raw, answerable=reply.answerable)
    for cite in reply.cites:
        found = _resolve_cite(facts, cite)
        if found is None:
            answer.notes.append(f"the answer cited {cite!r}, which is not part of this paper; dropped")
        elif found[0] == "section" and found[1] not in answer.sections:
            answer.sections.append(found[1])
        elif found[0] == "lemma" and found[1] not in answer.lemmas:
            answer.lemmas.append(found[1])
        elif found[0] == "theorem":
            answer.theorem = True
    checker = ClaimChecker(facts.doc)
    shown, overclaims = checker.check(raw)
    answer.shown = shown
    for claim in overclaims:
        line = claim.correction()
        if line not in answer.corrections:
            answer.corrections.append(line)
    # lemmas the answer speaks about without citing them still get their record line
    spoken = [s for p, s in checker._subjects(raw) if s not in (ALL, THEOREM)]
    spoken += [c.subject for c in overclaims if c.subject not in (ALL, THEOREM)]
    for lid in answer.lemmas + [s for s in dict.fromkeys(spoken) if s not in answer.lemmas]:
        answer.records.append(facts.record_line(lid))
    if answer.theorem or any(c.subject == THEOREM for c in overclaims):
        answer.records.insert(0, facts.theorem_line())
    if not (answer.sections or answer.lemmas or answer.theorem):
        answer.notes.append("the answer cites no part of the paper: it is not supported by a section or a record")
    if not reply.answerable:
        answer.notes.append("the model says the paper and its records do not answer this question")
    answer.notes.extend(facts.notes)
    return answer


async def answer_question(
    agent: BaseAgent, facts: PaperFacts, question: str, store: ReviewStore | None = None
) -> Answer:
    """Ask, check, and record one question. LLM and budget errors propagate (nothing recorded)."""
    from eurekaclaw.errors import BadInputError

    question = " ".join((question or "").split())
    if not question:
        raise BadInputError("the question is empty")
    if len(question) > MAX_QUESTION:
        raise BadInputError(f"the question is longer than {MAX_QUESTION} characters")
    store = store or ReviewStore(facts.session.path)
    prompt = ask_prompt(facts, question, store.history())
    with review_stage():
        reply = await agent.ask_structured(agent.request(prompt, output=QAReply), QAReply)
    answer = check_answer(facts, question, reply)
    store.append("question", model=agent.identity(), **answer.as_json())
    if answer.corrections:
        facts.session.event("review_correction", version=answer.version, corrections=answer.corrections)
    return answer
