"""Commands that manage sessions, skills and the set-up rather than run research: pause,
sessions, eval-session, install-skills, skills, doctor. Registered in cli.py's block of
commands that live in their own modules (they share its options and error handling)."""

# Annotations are objects here, not strings (no `from __future__ import annotations`): Typer
# reads the command signatures at every start and would compile and evaluate each string twice.

from typing import TYPE_CHECKING, Annotated

import typer

from eurekaclaw.cli_common import JsonOpt, LLMOpt, VerboseOpt, cli_settings, handle_errors
from eurekaclaw.errors import EXIT_FAILED

if TYPE_CHECKING:
    from eurekaclaw.theory_view import TheoremView


@handle_errors
def pause(
    session_id: Annotated[str, typer.Argument(help="Session id or a unique prefix (≥ 6 characters).")],
    verbose: VerboseOpt = False,
) -> None:
    """Ask a running session to stop at its next checkpoint (resume it later)."""
    from eurekaclaw.console import out
    from eurekaclaw.errors import BadInputError
    from eurekaclaw.store.session import Workspace

    session = Workspace(cli_settings().eurekaclaw_dir).resolve(session_id)
    if session.running_pid() is None:
        raise BadInputError(f"session {session.session_id} is not running")
    session.request_pause()
    out().print(f"pause requested for {session.session_id}; it stops at its next checkpoint")


@handle_errors
def sessions(json_out: JsonOpt = False, verbose: VerboseOpt = False) -> None:
    """List sessions: id, mode, statement, status, theorem (status word and the claim checked), cost, date."""
    import json

    from rich.table import Table
    from rich.text import Text

    from eurekaclaw.cli_result import cost_text, theorem_of, usage_of, view_json
    from eurekaclaw.console import out
    from eurekaclaw.store.session import Workspace

    rows = []
    damaged: dict[str, str] = {}  # session id -> why its session.json could not be read
    unreadable: list[str] = []  # damaged sessions with nothing to rebuild a listing from
    for session in Workspace(cli_settings().eurekaclaw_dir).sessions():
        meta, problem = session.read_meta()  # read only: listing never moves a file
        if problem:
            damaged[session.session_id] = problem
        if meta is None:
            unreadable.append(session.session_id)
            continue
        if meta.status == "running" and session.running_pid() is None:
            # the process died without a checkpointed stop (killed, crashed): resumable
            meta.status = "interrupted"
        rows.append(meta)
    rows.sort(key=lambda m: m.created_at, reverse=True)
    runs = Workspace(cli_settings().eurekaclaw_dir).runs_dir
    views = {m.session_id: theorem_of(runs / m.session_id) for m in rows}
    if json_out:
        listed = []
        for m in rows:
            data = m.model_dump(mode="json")
            if not usage_of(runs / m.session_id).get("cost_known", True):
                data["cost_usd"], data["cost_known"] = None, False
            view = views[m.session_id]
            if view is not None:  # the displayed status, never the stage's plain word
                data["theory_status"] = view.status
                data["theorem"] = view_json(view)
            if m.session_id in damaged:
                data["damaged"] = damaged[m.session_id]
            listed.append(data)
        listed += [{"session_id": sid, "status": "damaged", "damaged": damaged[sid]} for sid in unreadable]
        out().print_json(json.dumps(listed))
        return
    table = Table(show_header=True)
    for col in ("id", "mode", "statement", "status", "theorem", "cost", "date"):
        table.add_column(col, overflow="fold")
    for m in rows:
        text = m.statement or " ".join(m.paper_ids)
        short = text if len(text) <= 50 else text[:47] + "..."
        table.add_row(
            m.session_id,
            m.mode,
            Text(short),
            m.status if m.session_id not in damaged else f"{m.status}\ndamaged: {damaged[m.session_id]}",
            Text(theorem_cell(views[m.session_id], m.theory_status)),
            cost_text(runs / m.session_id, m.cost_usd),
            m.created_at.strftime("%Y-%m-%d %H:%M"),
        )
    for sid in unreadable:
        table.add_row(sid, "?", Text(""), Text(f"damaged: {damaged[sid]}"), "-", "-", "-")
    out().print(table if rows or unreadable else "no sessions yet")


def theorem_cell(view: "TheoremView | None", stored: str | None) -> str:
    """The theorem's status word, the claim checked and the narrowing, for the sessions table."""
    if view is None:
        return "-" if not stored else ("self-reviewed" if stored == "self_reviewed" else stored)
    lines = [view.word + (f" ({view.level_label})" if view.level_label else "")]
    if view.from_claim and view.statement_plain:
        lines.append(view.statement_plain)
    if view.scope_sentence:
        lines.append(view.scope_sentence)
    return "\n".join(lines)


@handle_errors
def eval_session(
    session_id: Annotated[str, typer.Argument(help="Session id or a unique prefix (≥ 6 characters).")],
    llm: LLMOpt = None,
    refresh: Annotated[
        bool,
        typer.Option(
            "--refresh", help="Judge novelty again with a model call instead of reusing the stored judgement."
        ),
    ] = False,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Score a session on five weighted dimensions (Scientist-Bench) and write eval_report.json.

    A novelty judgement stored by an earlier evaluation is reused (no model call) unless --refresh.
    """
    from eurekaclaw.orchestrator.evaluation import evaluate

    report, table = evaluate(cli_settings(), session_id, llm, refresh=refresh)
    from eurekaclaw.console import out

    if json_out:
        out().print_json(report.model_dump_json())
    else:
        out().print(table)


# ---------------------------------------------------------------------------------------------
# skills and environment
# ---------------------------------------------------------------------------------------------


@handle_errors
def install_skills(
    source: Annotated[
        str | None, typer.Argument(help="A folder, .zip/.tar.gz archive or git URL; default: the built-in skills.")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite skills you edited.")] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Install or update skills into $EUREKACLAW_DIR/skills."""
    from eurekaclaw.console import out
    from eurekaclaw.skills.install import install_skills as do_install
    from eurekaclaw.store.session import Workspace

    report = do_install(source, Workspace(cli_settings().eurekaclaw_dir).skills_dir, force=force)
    out().print(report.render(), markup=False, highlight=False)
    if report.rejected and not (report.installed or report.updated or report.unchanged or report.kept):
        raise typer.Exit(EXIT_FAILED)


@handle_errors
def skills(json_out: JsonOpt = False, verbose: VerboseOpt = False) -> None:
    """List skills with their source, usage count and success rate."""
    import json

    from eurekaclaw.orchestrator.skills_view import skills_table

    table, rows, problems = skills_table(cli_settings())
    from eurekaclaw.console import err, out

    if json_out:
        out().print_json(json.dumps(rows))
    else:
        out().print(table)
    for path, reason in problems:
        err().print(f"skipped {path}: {reason}", markup=False, highlight=False)


@handle_errors
def doctor(
    online: Annotated[
        bool, typer.Option("--online", help="Also check that the literature services and the LLM endpoint answer.")
    ] = False,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Report configuration and every optional tool (no network unless --online)."""
    import json

    from eurekaclaw.orchestrator.doctor import doctor_report, render_doctor

    report = doctor_report(online=online)
    from eurekaclaw.console import out

    if json_out:
        out().print_json(json.dumps(report))
    else:
        out().print(render_doctor(report))


# Commands defined in their own modules: one registration line each, kept in this block.
