"""Revisions: the model rewrites prose after feedback; the paper is rebuilt as a new version.

The model may change only the prose fields. Statements, proofs, statuses and verification levels
come from theory_state.json through the writer's `build_doc`, which this module never writes, so
a revision cannot raise a level: only the checkers do that. The revised prose goes through the
writer's own checks — `usable_fields` (too short is not prose), then `check_prose`, the one door
for model text (no sentence on checks or proof status: the records say those; no title claiming a
proof; the paper's own macros and tables removed), and at render time the writer's sanitiser — and is compiled with the writer's compile-and-repair. A revision that does not
compile where a TeX toolchain exists is rolled back: no paper_v<n> file is left, the version list
is unchanged, and the build log stays in latex_v<n>/ for inspection. A session with an evaluation
report gets it refreshed for the new version (the novelty judgement reused: the theory and the
survey did not change), so the report never silently scores an earlier version.
"""

from __future__ import annotations

import contextlib
import difflib
import shutil
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.agents.evaluate.session import REPORT_FILE, rescore_prose_revision
from eurekaclaw.agents.writer.bibtex import render_bibtex
from eurekaclaw.agents.writer.compile import usable_toolchain
from eurekaclaw.agents.writer.doc import PROSE_FIELDS, build_doc
from eurekaclaw.agents.writer.honest import check_prose
from eurekaclaw.agents.writer.markdown import render_markdown
from eurekaclaw.agents.writer.prose import PaperProse, fallback_prose, usable_fields
from eurekaclaw.agents.writer.render import render_tex
from eurekaclaw.agents.writer.repair import compile_with_repair, copy_pdf
from eurekaclaw.errors import BadInputError
from eurekaclaw.model_text import quarantine
from eurekaclaw.review.agent import review_stage
from eurekaclaw.review.facts import PaperFacts
from eurekaclaw.review.history import REVIEW_DIR, PaperVersion, ReviewStore, version_files
from eurekaclaw.store.files import atomic_write_text
from eurekaclaw.templates import render_prompt

MAX_FEEDBACK = 8000


class RevisionReply(BaseModel):
    title: str | None = None
    abstract: str | None = None
    introduction: str | None = None
    preliminaries: str | None = None
    related_work: str | None = None
    limitations: str | None = None
    experiments: str | None = None
    summary: str = ""
    needs: list[Literal["theory", "experiment"]] = Field(default_factory=list)
    needs_reason: str = ""


@dataclass
class RevisionOutcome:
    feedback: str
    base_version: int
    ok: bool = False
    version: int | None = None
    files: dict[str, str] = field(default_factory=dict)
    compiled: bool = False
    changes: list[str] = field(default_factory=list)
    model_summary: str = ""
    notes: list[str] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)
    error: str = ""
    scope: dict[str, Any] = field(default_factory=dict)  # RevisionScope: what re-runs and why
    reran: list[dict[str, str]] = field(default_factory=list)  # per stage: its status and summary
    levels: dict[str, str] = field(default_factory=dict)  # lemma -> level/status after the revision

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "feedback": self.feedback,
            "base_version": self.base_version,
            "version": self.version,
            "files": self.files,
            "compiled": self.compiled,
            "changes": self.changes,
            "model_summary": self.model_summary,
            "notes": self.notes,
            "needs": self.needs,
            "error": self.error,
            "scope": self.scope,
            "rerun_stages": [r["stage"] for r in self.reran],
            "reran": self.reran,
            "levels": self.levels,
        }

    def summary(self) -> str:
        if self.ok:
            return (
                f"paper version {self.version} written ({self.files.get('tex_file')}); "
                f"{len(self.changes)} change(s) from version {self.base_version}"
            )
        return f"no new version: {self.error}"

    def text(self) -> str:
        parts = [self.summary()]
        if self.reran:
            parts.append(
                "Re-ran:\n"
                + "\n".join(
                    f"- {r['stage']}: {r['status']}" + (f" ({r['summary'][:160]})" if r["summary"] else "")
                    for r in self.reran
                )
            )
        if self.changes:
            prose_only = all(r["stage"] == "write" for r in self.reran)
            unchanged = (
                ""
                if not (self.ok and prose_only)
                else "\n- statements, proofs, statuses and verification levels: unchanged (from the session's records)"
            )
            parts.append("What changed:\n" + "\n".join(f"- {c}" for c in self.changes) + unchanged)
        if self.model_summary:
            parts.append(f"The model's own summary: {self.model_summary}")
        if self.needs:
            parts.append("Not done by this revision:\n" + "\n".join(f"- {n}" for n in self.needs))
        if self.notes:
            parts.append("Notes:\n" + "\n".join(f"- {n}" for n in self.notes))
        return "\n\n".join(parts)


def revise_prompt(facts: PaperFacts, feedback: str) -> str:
    lemmas = [{"id": lem.id, "record": facts.record_line(lem.id).split(": ", 1)[-1]} for lem in facts.doc.lemmas]
    prose = {name: facts.doc.prose.get(name, "") for name in PROSE_FIELDS}
    if facts.experiment is None:
        prose.pop("experiments")
    return render_prompt(
        "review_revise",
        theorem_line=facts.theorem_line(),
        statement=facts.doc.theorem_statement,
        lemmas=lemmas,
        keys=", ".join(k for k, _ in facts.plan.citable()),
        experiment=facts.experiment_lines(),
        version=facts.version.version,
        prose=prose,
        feedback=feedback,
    )


def checked_prose(facts: PaperFacts, reply: RevisionReply) -> tuple[dict[str, str], list[str]]:
    """The new prose after the writer's checks and the level check, and what they did."""
    base = {name: facts.doc.prose.get(name, "") or "" for name in PROSE_FIELDS}
    proposed = {name: getattr(reply, name) for name in PROSE_FIELDS if getattr(reply, name) is not None}
    notes: list[str] = []
    fields, rejected = usable_fields(PaperProse(**{**base, **proposed}))
    rejected = [name for name in rejected if name in proposed]
    if rejected:
        notes.append("the model's " + ", ".join(rejected) + " was not usable prose; the earlier text was kept")
    prose = {**base, **{k: v for k, v in fields.items() if k in proposed}}
    if facts.experiment is None:
        prose["experiments"] = ""
    fallback_title = fallback_prose(facts.theory, facts.plan, facts.experiment)["title"]
    prose, honesty = check_prose(prose, facts.theory, fallback_title)
    notes.extend(honesty)
    return prose, notes


def diff_summary(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """Per prose field: rewritten, added or removed, with word counts; statements untouched."""
    changes: list[str] = []
    for name in PROSE_FIELDS:
        before, after = (old.get(name) or "").strip(), (new.get(name) or "").strip()
        if before == after:
            continue
        label = name.replace("_", " ")
        if name == "title":
            changes.append(f"title: {before!r} -> {after!r}")
            continue
        if not before:
            changes.append(f"{label}: added ({len(after.split())} words)")
            continue
        if not after:
            changes.append(f"{label}: removed ({len(before.split())} words)")
            continue
        added = removed = 0
        for op in difflib.ndiff(before.split(), after.split()):
            added += op.startswith("+ ")
            removed += op.startswith("- ")
        changes.append(
            f"{label}: rewritten (+{added}/-{removed} words, {len(before.split())} -> {len(after.split())} words)"
        )
    return changes


def checked_feedback(facts: PaperFacts, feedback: str) -> str:
    """The feedback, stripped; a readable error for one no revision can use."""
    feedback = (feedback or "").strip()
    if not feedback:
        raise BadInputError("the revision feedback is empty")
    if len(feedback) > MAX_FEEDBACK:
        raise BadInputError(f"the revision feedback is longer than {MAX_FEEDBACK} characters")
    if not facts.prose_recorded:
        raise BadInputError(
            f"session {facts.session.session_id} did not record its paper's prose (an older version wrote "
            "it); a revision needs it: re-run the write stage first"
        )
    return feedback


async def revise_paper(
    agent: BaseAgent,
    facts: PaperFacts,
    feedback: str,
    store: ReviewStore | None = None,
    scope: dict[str, Any] | None = None,
) -> RevisionOutcome:
    """One prose revision (the writer only). Model and budget errors propagate before anything
    is written."""
    feedback = checked_feedback(facts, feedback)
    store = store or ReviewStore(facts.session.path)
    outcome = RevisionOutcome(
        feedback=feedback,
        base_version=facts.version.version,
        scope=dict(scope or {}),
        reran=[{"stage": "write", "status": "prose only", "summary": ""}],
    )
    request = agent.request(
        revise_prompt(facts, feedback), output=RevisionReply, system=render_prompt("review_revise_system")
    )
    with review_stage():
        reply = await agent.ask_structured(request, RevisionReply)
    # the model's summary is shown: it passes the door (no check or proof status in its words)
    outcome.model_summary = quarantine(reply.summary.strip(), proved=facts.doc.proved).text
    if reply.needs:
        why = quarantine(reply.needs_reason.strip(), proved=facts.doc.proved).text
        reason = f": {why}" if why else ""
        outcome.needs.append(
            f"the feedback needs new {' and '.join(reply.needs)} work{reason}; this revision was judged to need prose only. "
            "Revise again saying what to re-prove or re-run (a changed statement needs a new session)."
        )
    prose, notes = checked_prose(facts, reply)
    outcome.notes.extend(notes)
    outcome.changes = diff_summary(facts.doc.prose, prose)
    if not outcome.changes:
        outcome.error = "the revision changed none of the paper's prose"
        if warning := store.record("revision", **outcome.as_json()):
            outcome.notes.append(warning)
        return outcome
    await _build_version(agent, facts, prose, outcome, store)
    if outcome.ok:
        await _rescore(agent, facts, outcome, store)
    if warning := store.record("revision", model=agent.identity(), **outcome.as_json()):
        outcome.notes.append(warning)
    with contextlib.suppress(OSError):  # an events line lost must not turn the outcome into a traceback
        facts.session.event("review_revision", ok=outcome.ok, version=outcome.version, error=outcome.error)
    return outcome


async def _build_version(
    agent: BaseAgent, facts: PaperFacts, prose: dict[str, str], outcome: RevisionOutcome, store: ReviewStore
) -> None:
    session_dir = facts.session.path
    number = store.next_version()
    files = version_files(number)
    doc = build_doc(facts.theory, facts.plan, facts.experiment, prose)
    notes = list(outcome.notes)
    toolchain, skipped = usable_toolchain()
    build_dir = session_dir / f"latex_v{number}"
    compiled = False
    if toolchain is None:
        tex, info = render_tex(doc)
        bib = render_bibtex(doc.cite)
        notes.append(f"{files['tex_file']} and {files['md_file']} only: {skipped}")
    else:
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(build_dir)  # a failed earlier attempt at this number
        result = await compile_with_repair(doc, build_dir, toolchain, agent.ctx.settings.latex_timeout_s)
        tex, bib, info = result.tex, result.bib, result.info
        notes.extend(f"compile repair: {a}" for a in result.actions)
        if not result.compiled or not copy_pdf(result, session_dir / files["pdf_file"]):
            with contextlib.suppress(FileNotFoundError):
                (session_dir / files["pdf_file"]).unlink()
            outcome.error = (
                f"the revised paper did not compile ({result.error or 'no PDF'}); nothing was "
                f"written, version {facts.version.version} stays current; see latex_v{number}/paper.log"
            )
            outcome.notes = list(dict.fromkeys(notes))
            return
        compiled = True
    notes = list(dict.fromkeys(notes + doc.notes + info.notes))
    version = PaperVersion(
        version=number,
        tex_file=files["tex_file"],
        md_file=files["md_file"],
        bib_file=files["bib_file"],
        pdf_file=files["pdf_file"] if compiled else None,
        compiled=compiled,
        feedback=outcome.feedback,
        prose=prose,
        changes=outcome.changes,
        model_summary=outcome.model_summary,
        notes=notes,
    )
    try:
        for key, text in (("tex_file", tex), ("bib_file", bib), ("md_file", render_markdown(doc, notes))):
            atomic_write_text(session_dir / files[key], text)
        store.add_version(version)  # atomic: when it fails, versions.json is as it was
    except OSError as exc:
        for name in files.values():  # every paper_v<n>.* and references_v<n>.bib this attempt made
            with contextlib.suppress(OSError):
                (session_dir / name).unlink(missing_ok=True)
        shutil.rmtree(build_dir, ignore_errors=True)  # it compiled: the build holds nothing to inspect
        outcome.error = (
            f"the revision could not write {getattr(exc, 'filename', None) or 'its files'}: "
            f"{exc.strerror or exc}; nothing was written, version {facts.version.version} stays current"
        )
        outcome.notes = notes
        return
    outcome.ok, outcome.version, outcome.compiled, outcome.notes = True, number, compiled, notes
    outcome.files = {k: v for k, v in files.items() if k != "pdf_file" or compiled}


async def _rescore(agent: BaseAgent, facts: PaperFacts, outcome: RevisionOutcome, store: ReviewStore) -> None:
    """Score the new version (citations may have changed; the novelty judgement is reused), so
    eval_report.json never silently keeps scoring an earlier version. The earlier report is kept
    under review/v<base>/, as a theory revision keeps it. A report that cannot be written leaves
    the earlier one, which names the version it scores, and the outcome says so."""
    session_dir = facts.session.path
    base = facts.version.version
    report_path = session_dir / REPORT_FILE
    if not report_path.is_file():
        return  # nothing to refresh: `eval-session` scores the current version when asked
    try:
        archive = session_dir / REVIEW_DIR / f"v{base}" / REPORT_FILE
        if not archive.exists():
            archive.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(report_path, archive)
        report = await rescore_prose_revision(session_dir, agent.ctx.settings)
    except OSError as exc:
        outcome.notes.append(
            f"the evaluation was not refreshed ({exc.strerror or exc}): {REPORT_FILE} still scores an earlier "
            "version; `eurekaclaw eval-session` scores the current one"
        )
        return
    if report is None or outcome.version is None:
        return
    outcome.notes.append(
        f"evaluation of version {outcome.version}: total {report.total:.3f} ({REPORT_FILE}, novelty judgement "
        f"reused; version {base}'s report is kept in {REVIEW_DIR}/v{base}/)"
    )
    version = next((v for v in store.revisions() if v.version == outcome.version), None)
    if version is not None:
        version.eval_total = report.total
        version.notes = list(outcome.notes)
        try:
            store.add_version(version)
        except OSError as exc:  # the version stands and the report names it; only its listed total is missing
            outcome.notes.append(
                f"warning: {REVIEW_DIR}/versions.json does not list this version's total ({exc.strerror or exc})"
            )
