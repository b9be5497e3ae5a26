"""A revision that re-runs theory and/or the experiment, then the writer and the evaluation, on a
copy of the session.

The stages run through orchestrator/rerun.py (the orchestrator's own stage code) on a work copy
of the session's records under review/work-v<n>/, with the session's own ledger and llm_log, so
the review's budget applies and every call is logged. Only when every stage succeeded and the
re-run lost nothing that was proved before is the result committed: the paper becomes
paper_v<n>.*, the replaced records are kept under review/v<base>/, and theory_state.json /
experiment_result.json / eval_report.json are replaced (the new report names the version it
scores, and versions.json records its total). Learn does not run: a revision must not store the
session's memories and skill statistics a second time (docs/review.md). Otherwise nothing in the session changes (the money spent
stays in usage.json) and the error says why. Levels are whatever the checkers recorded in the
re-run; nothing here sets one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Any

from eurekaclaw.agents.base import AgentContext, Services
from eurekaclaw.agents.evaluate.session import REPORT_FILE
from eurekaclaw.agents.views import lemma_views, theorem_view
from eurekaclaw.agents.writer.repair import BIB_NAME, TEX_NAME
from eurekaclaw.agents.writer.stage import BUILD_DIR, MD_NAME, PDF_NAME
from eurekaclaw.domains import discover_plugins
from eurekaclaw.errors import EurekaError, StageFailedError
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.knowledge_bus.keys import EVAL_REPORT, INPUT_SPEC, PAPER, WRITER_PROSE
from eurekaclaw.orchestrator.rerun import RerunFailed, after_paper, rerun_stages
from eurekaclaw.orchestrator.session_setup import build_tools
from eurekaclaw.review.agent import STAGE as REVIEW_STAGE
from eurekaclaw.review.facts import PaperFacts
from eurekaclaw.review.history import REVIEW_DIR, VERSIONS, PaperVersion, ReviewStore, version_files
from eurekaclaw.review.revise import RevisionOutcome, diff_summary
from eurekaclaw.review.scope import RevisionScope
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.types.artifacts import EvalReport, PaperOutput, TheoryState, level_rank
from eurekaclaw.types.tasks import InputSpec

# What a re-run may change in the session, besides the paper (which becomes paper_v<n>).
RECORDS = ("theory_state.json", "experiment_result.json", "regret_curves.csv", REPORT_FILE)
# Run after the scope's stages: the revised paper is scored again (never Learn, see above);
# derived from the stage graph's declarations: ("evaluate",).
AFTER = after_paper()
# Not copied into the work copy: logs the work copy must not grow, and earlier papers.
SKIPPED = {SessionDir.LLM_LOG, SessionDir.EVENTS, SessionDir.PID, SessionDir.PAUSE_REQUEST, SessionDir.CHECKPOINT}


def guidance_block(feedback: str) -> str:
    return (
        "<reader_feedback>\nA reader of the finished paper asked for this revision. Take it into "
        "account where it concerns your task; it does not change what counts as a proof or how "
        f"anything is checked.\n{feedback}\n</reader_feedback>"
    )


def level_view(theory: TheoryState) -> dict[str, str]:
    """Lemma -> its level when proven, else its status; 'theorem' -> the theorem's displayed
    status (theory_view: a self-reviewed theorem never reads "proved")."""
    out: dict[str, str] = {}
    for lid, view in lemma_views(theory).items():
        if lid in theory.lemma_dag:
            out[lid] = str(view.level) if view.level is not None and view.status != "circular" else view.status
    out["theorem"] = theorem_view(theory).status
    return out


def record_changes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    return [
        f"{'theorem' if k == 'theorem' else 'Lemma ' + k}: {old.get(k, 'absent')} -> {new.get(k, 'absent')}"
        for k in sorted(set(old) | set(new), key=lambda k: (k == "theorem", k))
        if old.get(k) != new.get(k)
    ]


def lost_work(before: TheoryState, after: TheoryState, scope: RevisionScope) -> str:
    """Why the re-run is not an improvement the session may keep, or "" when it is: a lemma it
    was asked to re-prove is not proven, a lemma proven before is not proven now or only at a
    weaker level (the earlier checks stay valid for the earlier proof), or the theorem was
    proved and is not now."""
    targets = scope.lemmas or list(before.proven_lemmas)
    missing = [
        lid
        for lid in dict.fromkeys([*targets, *before.proven_lemmas])
        if lid not in after.proven_lemmas and lid in after.lemma_dag
    ]
    why = after.status_reason or after.status
    if missing:
        return f"the theory re-run did not prove {', '.join(missing)} ({why[:200]})"
    lower = [
        f"{lid} at {after.proven_lemmas[lid].verification_level}, below its earlier {rec.verification_level}"
        for lid, rec in before.proven_lemmas.items()
        if lid in after.proven_lemmas
        and level_rank(after.proven_lemmas[lid].verification_level) < level_rank(rec.verification_level)
    ]
    if lower:
        return f"the theory re-run left {'; '.join(lower)}"
    if before.status == "proved" and after.status != "proved":
        return f"the theorem was proved before and is {after.status} after the theory re-run ({why[:200]})"
    return ""


class WorkCopy:
    """The session's records copied to review/work-v<n>/ and the context the stages run in."""

    def __init__(self, facts: PaperFacts, number: int) -> None:
        self.session = facts.session
        self.path = facts.session.path / REVIEW_DIR / f"work-v{number}"
        self.number = number

    def create(self) -> SessionDir:
        self.discard()
        self.path.mkdir(parents=True)
        for item in self.session.path.iterdir():
            if (
                item.is_file()
                and item.name not in SKIPPED
                and not item.name.endswith(".lock")
                and not item.name.startswith(("paper_v", "references_v"))
            ):
                shutil.copy2(item, self.path / item.name)
        log = self.session.file(SessionDir.LLM_LOG)
        if log.is_file():
            # read-only for the evaluation (who wrote the proofs); the calls themselves are logged
            # by the review's client into the session's own file. Without a link the evaluation
            # knows only the review's model (it says so).
            with contextlib.suppress(OSError):
                (self.path / SessionDir.LLM_LOG).symlink_to(log)
        return SessionDir(self.path)

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def keep_build_log(self) -> None:
        """A paper that did not compile leaves its build folder as latex_v<n>/, as a prose revision does."""
        build = self.path / BUILD_DIR
        if build.is_dir():
            target = self.session.path / f"latex_v{self.number}"
            shutil.rmtree(target, ignore_errors=True)
            shutil.move(str(build), str(target))


def work_context(review_ctx: AgentContext, work: SessionDir, bus: KnowledgeBus, feedback: str) -> AgentContext:
    """The stages' context: the review's model client (its ledger and llm_log are the session's,
    its caps the review's), the domain's tools and plugin, and the feedback as guidance."""
    settings = review_ctx.settings
    meta = work.load_meta()
    domain = meta.domain if meta is not None else "general"
    plugin = discover_plugins().get(domain)
    workspace = Workspace(settings.eurekaclaw_dir)
    return AgentContext(
        session_id=review_ctx.session_id,
        settings=settings,
        bus=bus,
        llm=review_ctx.llm,
        tools=build_tools(settings, workspace, plugin),
        episodic=review_ctx.episodic,
        workspace=workspace,
        session=work,
        domain=domain,
        plugin=plugin,
        events=work.event,
        services=Services(guidance=guidance_block(feedback)),
        review_llm=review_ctx.review_llm,
    )


def input_spec(bus: KnowledgeBus, work: SessionDir) -> InputSpec:
    spec = bus.get(INPUT_SPEC)
    if isinstance(spec, InputSpec):
        return spec
    meta = work.load_meta()
    return InputSpec(
        mode=meta.mode if meta else "prove",
        statement=meta.statement if meta else "",
        domain=meta.domain if meta else None,
    )


async def restage_revision(
    review_ctx: AgentContext,
    facts: PaperFacts,
    feedback: str,
    scope: RevisionScope,
    store: ReviewStore,
    impls: dict[str, Any] | None = None,
) -> RevisionOutcome:
    """restage_paper, recorded in the review history and the session's events — also when a
    budget or model error ends it (then re-raised, with the session unchanged)."""
    try:
        outcome = await restage_paper(review_ctx, facts, feedback, scope, store, impls)
    except EurekaError as exc:
        failed = RevisionOutcome(
            feedback=feedback,
            base_version=facts.version.version,
            scope=scope.model_dump(mode="json"),
            error=exc.message,
        )
        store.record("revision", model=review_ctx.llm.identity(), **failed.as_json())
        with contextlib.suppress(OSError):  # the error being raised is the one to show
            facts.session.event("review_revision", ok=False, version=None, error=exc.message)
        raise
    if warning := store.record("revision", model=review_ctx.llm.identity(), **outcome.as_json()):
        outcome.notes.append(warning)
    with contextlib.suppress(OSError):  # an events line lost must not undo a committed revision
        facts.session.event(
            "review_revision",
            ok=outcome.ok,
            version=outcome.version,
            error=outcome.error,
            reran=[r["stage"] for r in outcome.reran],
        )
    return outcome


async def restage_paper(
    review_ctx: AgentContext,
    facts: PaperFacts,
    feedback: str,
    scope: RevisionScope,
    store: ReviewStore,
    impls: dict[str, Any] | None = None,
) -> RevisionOutcome:
    """Re-run scope.stages on a work copy; commit as paper_v<n> or leave the session unchanged."""
    outcome = RevisionOutcome(
        feedback=feedback,
        base_version=facts.version.version,
        scope=scope.model_dump(mode="json"),
        notes=list(scope.notes),
    )
    number = store.next_version()
    copy = WorkCopy(facts, number)
    try:
        work = copy.create()
        bus = KnowledgeBus.load(facts.session.session_id, work.path)
        ctx = work_context(review_ctx, work, bus, feedback)
        runs = await rerun_stages(
            ctx,
            input_spec(bus, work),
            [*scope.stages, *AFTER],
            lemmas=scope.lemmas,
            impls=impls,
            attribute_to=REVIEW_STAGE,
        )
        outcome.reran = [r.as_json() for r in runs]
        after = bus.get_theory_state()
        if after is None:
            raise RerunFailed("the re-run left no theory state")
        if "theory" in scope.stages and (lost := lost_work(facts.theory, after, scope)):
            raise RerunFailed(lost)
        paper = bus.get(PAPER)
        if not isinstance(paper, PaperOutput) or paper.compile_error:
            why = paper.compile_error if isinstance(paper, PaperOutput) else "no paper written"
            copy.keep_build_log()
            raise RerunFailed(f"the revised paper did not compile ({why}); see latex_v{number}/paper.log")
        _label_report(bus, number, facts.version.version)
        _commit(facts, work, bus, paper, outcome, store, number, after)
    except CommitBroken as exc:
        outcome.error = str(exc)
    except (RerunFailed, StageFailedError) as exc:
        outcome.error = f"{exc.message}; nothing was changed, version {facts.version.version} stays current"
    except OSError as exc:  # the work copy or the commit could not be written (disk full, permissions)
        outcome.error = (
            f"the revision could not write {getattr(exc, 'filename', None) or 'its files'}: "
            f"{exc.strerror or exc}; version {facts.version.version} stays current"
        )
    finally:
        copy.discard()
    return outcome


def _commit(
    facts: PaperFacts,
    work: SessionDir,
    bus: KnowledgeBus,
    paper: PaperOutput,
    outcome: RevisionOutcome,
    store: ReviewStore,
    number: int,
    after: TheoryState,
) -> None:
    session = facts.session.path
    files = version_files(number)
    names = {"tex_file": TEX_NAME, "md_file": MD_NAME, "bib_file": BIB_NAME, "pdf_file": PDF_NAME}
    written = {
        key: files[key]
        for key, name in names.items()
        if (work.path / name).is_file() and (key != "pdf_file" or paper.compiled)
    }
    swap, notes = FileSwap(), list(outcome.notes)
    try:
        _archive(session, facts.version.version, swap)
        for key, target in written.items():
            swap.stage(work.path / names[key], session / target)
        for name in RECORDS:
            if (work.path / name).is_file():
                swap.stage(work.path / name, session / name)
        swap.apply()
        meta = facts.session.load_meta()
        if meta is not None:
            swap.keep(facts.session.file(SessionDir.META))
            meta.theory_status = after.status
            facts.session.save_meta(meta)
        swap.keep(store.dir / VERSIONS)
        store.add_version(_new_version(facts, bus, paper, outcome, number, after, written))
    except BaseException as exc:
        left = swap.rollback()
        outcome.notes, outcome.changes, outcome.levels = notes, [], {}  # nothing of version <number> stands
        if left and isinstance(exc, OSError):
            raise CommitBroken(exc, left) from exc
        raise
    swap.finish()
    outcome.ok, outcome.version, outcome.compiled, outcome.files = True, number, paper.compiled, written


def _new_version(
    facts: PaperFacts,
    bus: KnowledgeBus,
    paper: PaperOutput,
    outcome: RevisionOutcome,
    number: int,
    after: TheoryState,
    written: dict[str, str],
) -> PaperVersion:
    """versions.json's entry for version <number>; the outcome gets its changes and notes."""
    cached = bus.get(WRITER_PROSE)
    prose = {str(k): str(v or "") for k, v in (cached.get("prose") or {}).items()} if isinstance(cached, dict) else {}
    outcome.levels = level_view(after)
    outcome.changes = record_changes(level_view(facts.theory), outcome.levels) + diff_summary(facts.doc.prose, prose)
    outcome.notes = list(dict.fromkeys(outcome.notes + list(paper.notes)))
    report = bus.get(EVAL_REPORT)
    score = report.total if isinstance(report, EvalReport) else None
    if score is not None:
        outcome.notes.append(
            f"evaluation of version {number}: total {score:.3f} ({REPORT_FILE}; version "
            f"{facts.version.version}'s report is kept in {REVIEW_DIR}/v{facts.version.version}/)"
        )
    return PaperVersion(
        version=number,
        tex_file=written.get("tex_file"),
        md_file=written.get("md_file"),
        bib_file=written.get("bib_file"),
        pdf_file=written.get("pdf_file"),
        compiled=paper.compiled,
        feedback=outcome.feedback,
        prose=prose,
        changes=outcome.changes,
        notes=outcome.notes,
        reran=[r["stage"] for r in outcome.reran],
        levels=outcome.levels,
        eval_total=score,
    )


def _label_report(bus: KnowledgeBus, number: int, base: int) -> None:
    """The re-run's report says which paper version it scores (the first note, shown by
    `eval-session`), so it is never mistaken for version <base>'s."""
    report = bus.get(EVAL_REPORT)
    if not isinstance(report, EvalReport):
        raise RerunFailed("the evaluation left no report")
    report.notes.insert(0, f"scores paper version {number} (a review --revise of version {base})")
    report.paper_version = number
    bus.put(EVAL_REPORT, report)


class CommitBroken(OSError):
    """A commit failed and some files could not be put back: the error must not say "unchanged"."""

    def __init__(self, cause: OSError, left: list[str]) -> None:
        super().__init__(
            f"the revision could not write {getattr(cause, 'filename', None) or 'its files'}: "
            f"{cause.strerror or cause}, and could not restore {', '.join(left)} (the earlier content "
            "of each is beside it as .<name>.old)"
        )


class FileSwap:
    """Changes files in the session folder all or nothing. New content is copied beside its
    target first; each file changed keeps its old content (a hard link, else a copy) until the
    whole commit succeeded, so an error at any point puts every file back and removes new ones."""

    def __init__(self) -> None:
        self.staged: list[tuple[Path, Path]] = []
        self.kept: dict[Path, Path | None] = {}  # target -> its old content; None: it did not exist

    def stage(self, source: Path, target: Path) -> None:
        tmp = target.with_name(f".{target.name}.new")
        self.staged.append((tmp, target))  # listed first, so a half-copied file is removed too
        shutil.copy2(source, tmp)

    def keep(self, target: Path) -> None:
        """Hold target's current content; call before anything changes or creates it."""
        if target in self.kept:
            return
        if not target.exists():
            self.kept[target] = None
            return
        backup = target.with_name(f".{target.name}.old")
        with contextlib.suppress(FileNotFoundError):
            backup.unlink()
        try:
            os.link(target, backup)
        except OSError:  # no hard links here: a copy (needs space, but the commit did not start yet)
            shutil.copy2(target, backup)
        self.kept[target] = backup

    def apply(self) -> None:
        for tmp, target in self.staged:
            self.keep(target)
            os.replace(tmp, target)  # a reader never sees half a file

    def rollback(self) -> list[str]:
        """Undo everything; the names that could not be put back."""
        for tmp, _ in self.staged:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        left = []
        for target, backup in reversed(self.kept.items()):
            try:
                if backup is None:
                    target.unlink(missing_ok=True)
                elif target.exists() and os.path.samefile(backup, target):
                    backup.unlink()  # never replaced (renaming a hard link onto itself does nothing)
                else:
                    os.replace(backup, target)
            except OSError:
                left.append(target.name)
        return left

    def finish(self) -> None:
        for backup in self.kept.values():
            if backup is not None:
                with contextlib.suppress(OSError):
                    backup.unlink()


def _archive(session: Path, base_version: int, swap: FileSwap) -> None:
    """The records version <base> was written from, kept under review/v<base>/ (once)."""
    folder = session / REVIEW_DIR / f"v{base_version}"
    folder.mkdir(parents=True, exist_ok=True)
    for name in RECORDS:
        source, target = session / name, folder / name
        if source.is_file() and not target.exists():
            swap.keep(target)  # made by this commit: removed again if it fails
            shutil.copy2(source, target)
