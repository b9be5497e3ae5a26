"""A finished session as `review` sees it: the paper's current version and the records behind it.

The lemma views come from the writer's own `build_doc`, which takes every status, level and
colour from theory_view, so what an answer is checked against is exactly what the paper, the
terminal and the browser show.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from eurekaclaw.agents.writer.bibtex import CitePlan, plan_citations
from eurekaclaw.agents.writer.doc import PROSE_FIELDS, LemmaView, PaperDoc, build_doc
from eurekaclaw.agents.writer.experiments import ExperimentView, experiment_view, fmt
from eurekaclaw.errors import BadInputError
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.knowledge_bus.keys import PAPER, WRITER_PROSE
from eurekaclaw.review.history import PaperVersion, ReviewStore, version_files
from eurekaclaw.store.session import SessionDir
from eurekaclaw.types.artifacts import PaperOutput, TheoryState

PROOF_EXCERPT = 1500
SECTION_NAMES = tuple(f for f in PROSE_FIELDS if f != "title")


@dataclass
class PaperFacts:
    session: SessionDir
    bus: KnowledgeBus
    theory: TheoryState
    paper: PaperOutput
    plan: CitePlan
    experiment: ExperimentView | None
    version: PaperVersion
    doc: PaperDoc
    prose_recorded: bool = True
    notes: list[str] = field(default_factory=list)

    @property
    def prose(self) -> dict[str, str]:
        return dict(self.doc.prose)

    def sections(self) -> dict[str, str]:
        """Prose sections with text, by the names answers cite them with."""
        out = {
            name: self.doc.prose.get(name, "").strip() for name in SECTION_NAMES if self.doc.prose.get(name, "").strip()
        }
        if self.experiment is not None and "experiments" not in out:
            # the section exists (figure and bound table) even when the model wrote no prose for it
            out["experiments"] = "\n".join(self.experiment_lines()) or "(figure and table only)"
        return dict(sorted(out.items(), key=lambda kv: SECTION_NAMES.index(kv[0])))

    def lemmas(self) -> dict[str, LemmaView]:
        return {lem.id: lem for lem in self.doc.lemmas}

    def record_line(self, lemma_id: str) -> str:
        """One line from the records: "Lemma L2: proved, level reviewed (self-review); checks: ..."."""
        lem = self.lemmas().get(lemma_id)
        if lem is None:
            return f"Lemma {lemma_id}: not in this session's records"
        if lem.status != "proved":
            word = lem.view.word if lem.view is not None else lem.status
            return f"Lemma {lem.id}: {word} (no verification level: it is not established)"
        level = lem.level or "unverified"
        who = " (self-review)" if lem.self_review and level == "reviewed" else ""
        shown = lem.checks.replace("; self-review", "")  # the writer's table repeats it; said once here
        checks = f"; checks: {shown}" if shown else ""
        return f"Lemma {lem.id}: proved, level {level}{who}{checks}"

    def theorem_line(self) -> str:
        """The theorem's record as theory_view shows it everywhere (status word, weakest level,
        the narrowing sentence)."""
        doc = self.doc
        scope = f"; {doc.scope_sentence}; the statement itself was not proved" if doc.scope_sentence else ""
        if doc.proved:
            return f"Main theorem: proved; weakest level of its lemmas: {doc.weakest}{scope}"
        view = doc.theorem
        if view is not None and doc.standing:
            label = view.level_label or doc.weakest
            why = " (no independent check: not proved)" if view.status == "self_reviewed" else ""
            return f"Main {'claim' if doc.theorem_env == 'claim' else 'theorem'}: {view.word}{why}; weakest level: {label}{scope}"
        reason = f" ({doc.status_reason})" if doc.status_reason else ""
        return f"Main statement: not proved, status {doc.theorem_word}{reason}{scope}"

    def experiment_lines(self) -> list[str]:
        view = self.experiment
        if view is None:
            return []
        lines = [
            f"bound check {c.name} at horizon {c.horizon}: empirical {fmt(c.empirical_mean)} ± "
            f"{fmt(c.std_error)} vs theoretical {fmt(c.theoretical)}: {'held' if c.held else 'VIOLATED'}"
            for c in view.checks
        ]
        return lines + list(view.notes)


def load_facts(session: SessionDir, store: ReviewStore | None = None) -> PaperFacts:
    """The finished paper of a session and its records; a readable error when there is none."""
    sid = session.session_id
    if session.running_pid() is not None:
        raise BadInputError(f"session {sid} is still running; review it when it has finished")
    bus = KnowledgeBus.load(sid, session.path)
    theory = bus.get_theory_state()
    paper = bus.get(PAPER)
    if theory is None:
        raise BadInputError(f"session {sid} has no readable theory state: there is no paper to review")
    if not isinstance(paper, PaperOutput) or not paper.tex_file or not (session.path / paper.tex_file).is_file():
        raise BadInputError(f"session {sid} has no finished paper yet; `eurekaclaw resume {sid}` completes it")
    store = store or ReviewStore(session.path)
    plan = plan_citations(bus.get_bibliography())
    from eurekaclaw.config import load_settings

    plan.offline = load_settings().eurekaclaw_offline  # a revision says "offline by choice" as the paper did
    experiment = experiment_view(bus.get_experiment_result(), session.path)
    notes: list[str] = []
    revisions = store.revisions()
    cached = bus.get(WRITER_PROSE)
    recorded_prose = cached.get("prose") if isinstance(cached, dict) else None
    recorded = isinstance(recorded_prose, dict)
    if revisions:
        version = revisions[-1]
        prose = dict(version.prose)
    else:
        files = version_files(1)
        version = PaperVersion(
            version=1,
            tex_file=paper.tex_file,
            md_file=paper.md_file,
            bib_file=paper.bib_file,
            pdf_file=paper.pdf_file if paper.compiled else None,
            compiled=paper.compiled,
            notes=list(paper.notes),
        )
        version.tex_file = version.tex_file or files["tex_file"]
        prose = {str(k): str(v or "") for k, v in recorded_prose.items()} if recorded_prose else {}
        if not recorded:
            notes.append("this session did not record the paper's prose; answers rest on the records and paper.md only")
    doc = build_doc(theory, plan, experiment, prose)
    return PaperFacts(
        session=session,
        bus=bus,
        theory=theory,
        paper=paper,
        plan=plan,
        experiment=experiment,
        version=version,
        doc=doc,
        prose_recorded=recorded or bool(revisions),
        notes=notes,
    )


def paper_markdown(facts: PaperFacts, limit: int = 20000) -> str:
    """The current version's paper.md, for a session whose prose was not recorded."""
    name = facts.version.md_file
    path = Path(facts.session.path) / name if name else None
    if path is None or not path.is_file():
        return ""
    return path.read_text(encoding="utf-8", errors="replace")[:limit]
