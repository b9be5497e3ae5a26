"""The `eurekaclaw` command: parse, call one orchestrator entry point, render.

Heavy modules are imported inside the commands so `eurekaclaw --help` starts fast.
"""

from __future__ import annotations

import functools
import json
import logging
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
import typer.core

from eurekaclaw.errors import EXIT_FAILED, EXIT_INTERRUPTED, EurekaError, RunInterrupted


def _click_exceptions() -> Any:
    """Typer ≥ 0.20 carries its own copy of click; older ones use click itself."""
    vendored = getattr(typer.core, "_click", None)
    if vendored is not None:
        return vendored.exceptions
    import click

    return click.exceptions


class _OneLineErrors(typer.core.TyperGroup):
    """Usage errors (unknown option, missing argument, bad value) end like every other error:
    one line on stderr and exit 2, instead of Typer's framed box."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        if not standalone_mode:
            return super().main(*args, **kwargs)
        exceptions = _click_exceptions()
        try:
            code = super().main(*args, **kwargs)
        except exceptions.ClickException as exc:
            no_args_help = getattr(exceptions, "NoArgsIsHelpError", None)
            if no_args_help is not None and isinstance(exc, no_args_help) and getattr(exc, "ctx", None):
                typer.echo(exc.ctx.get_help())  # `eurekaclaw` alone: the help, as before
                sys.exit(0)
            ctx = getattr(exc, "ctx", None)
            where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
            message = " ".join(exc.format_message().split())
            _log_input_error(message)
            typer.echo(f"error: {message}{where}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    cls=_OneLineErrors,
    name="eurekaclaw",
    help=(
        "Machine-assisted mathematical research: survey the literature, formalize a statement "
        "into a lemma DAG, prove it bottom-up with mechanical checks, run experiments and write "
        "a LaTeX paper.\n\nExamples:\n\n"
        '  eurekaclaw prove "For all real x, x^2 - 2x + 1 >= 0"\n\n'
        "  eurekaclaw from-papers 1204.5721 --domain mab\n\n"
        '  eurekaclaw explore "multi-armed bandits with heavy tails"'
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_state: dict[str, Any] = {"verbose": False}

DomainOpt = Annotated[str | None, typer.Option("--domain", help="Domain plugin (e.g. mab); default: detected from the text.")]
OutputOpt = Annotated[
    str | None,
    # no square brackets in help texts: rich markup would swallow them
    typer.Option("--output", "-o", help="Where to copy the session's artefacts (default: ./results/<session_id>)."),
]
GateOpt = Annotated[str | None, typer.Option("--gate", help="Pause between stages: none | auto | human.")]
BudgetOpt = Annotated[float | None, typer.Option("--budget-usd", min=0.0, help="Stop cleanly before spending more than this.")]
BudgetTokensOpt = Annotated[
    int | None,
    typer.Option("--budget-tokens", min=0, help="Stop cleanly before using more tokens than this "
                 "(input + output + cache); the cap for models without a known price."),
]
LLMOpt = Annotated[
    str | None,
    typer.Option("--llm", help="Backend override: anthropic | openai_compat | local | scripted:<file> | replay:<session>."),
]
ReviewLLMOpt = Annotated[
    str | None,
    typer.Option("--review-llm", help="A separate model for proof reviews, same form as --llm; "
                 "without it the proving model's reviews are recorded as self-reviews."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print a machine-readable result on stdout.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Show debug logs and tracebacks.")]


class ConsoleLogHandler(logging.Handler):
    """Log records printed through the stderr console: while the live display runs, rich puts
    them above it instead of tearing it apart (a plain stream handler writes into it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from rich.text import Text

            from eurekaclaw import console

            console.err().print(Text(self.format(record), style="yellow" if record.levelno >= logging.WARNING else "dim"),
                                markup=False, highlight=False, soft_wrap=True)
        except Exception:  # noqa: BLE001 - logging must never raise
            self.handleError(record)


def _setup_logging(verbose: bool) -> None:
    root = logging.getLogger()
    if not any(isinstance(h, ConsoleLogHandler) for h in root.handlers):
        handler = ConsoleLogHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.WARNING)
    for noisy in ("httpx", "httpcore", "anthropic", "filelock", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.INFO if verbose else logging.WARNING)
    from eurekaclaw.redact import ScrubFilter

    for each in logging.getLogger().handlers:  # no secret in any log line
        if not any(isinstance(f, ScrubFilter) for f in each.filters):
            each.addFilter(ScrubFilter())


def _log_input_error(message: str) -> None:
    """Record a rejected command in $EUREKACLAW_DIR/events.jsonl (best effort, nothing else)."""
    try:
        import os
        from pathlib import Path

        from eurekaclaw.store.files import append_jsonl
        from eurekaclaw.types.artifacts import utcnow

        root = Path(os.environ.get("EUREKACLAW_DIR", "~/.eurekaclaw")).expanduser()
        append_jsonl(root / "events.jsonl", {"ts": utcnow().isoformat(), "kind": "input_error", "message": message, "argv": sys.argv[1:]})
    except Exception:  # noqa: BLE001 - logging an error must never raise another one
        pass


def handle_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """One readable line and a meaningful exit code for every error a user can cause."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        verbose = bool(kwargs.get("verbose"))
        _state["verbose"] = verbose
        _setup_logging(verbose)
        from rich.text import Text

        from eurekaclaw.console import err

        try:
            return func(*args, **kwargs)
        except typer.Exit:
            raise
        except EurekaError as exc:
            if verbose:
                err().print_exception()
            if exc.exit_code == 2:
                _log_input_error(exc.user_message())
            # a pause the user asked for is not an error
            label = ("paused: ", "bold magenta") if isinstance(exc, RunInterrupted) else ("error: ", "bold red")
            err().print(Text(label[0], style=label[1]) + Text(exc.user_message()), highlight=False)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            sid = getattr(_state.get("ui"), "session_id", "") or ""
            if sid:
                msg = f"the session was checkpointed; `eurekaclaw resume {sid}` continues it"
            else:
                msg = "stopped before a session was created; nothing to resume"
            err().print(Text("interrupted: ", style="bold magenta") + Text(msg), highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:  # noqa: BLE001 - a bug must still end in one line
            from eurekaclaw.errors import StorageError, storage_errors

            if isinstance(exc, OSError) and storage_errors(exc.errno):
                # a full or read-only disk outside the store: still one line with the fix
                storage = StorageError(exc.filename or "a file", exc)
                if verbose:
                    err().print_exception()
                err().print(Text("error: ", style="bold red") + Text(storage.user_message()), highlight=False)
                raise typer.Exit(storage.exit_code) from None
            if verbose:
                err().print_exception()
            err().print(
                Text("internal error: ", style="bold red")
                + Text(f"{type(exc).__name__}: {exc} (run with --verbose for the traceback)"),
                highlight=False,
            )
            raise typer.Exit(EXIT_FAILED) from None

    return wrapper


def _settings(gate: str | None = None, budget_tokens: int | None = None) -> Any:
    import os
    from pathlib import Path

    from eurekaclaw.config import load_settings
    from eurekaclaw.errors import MissingConfigError
    from eurekaclaw.orchestrator.inputs import check_env_files, check_home_dir, check_settings

    overrides: dict[str, Any] = {}
    if gate is not None:
        overrides["gate_mode"] = gate
    if budget_tokens is not None:
        overrides["eurekaclaw_budget_tokens"] = budget_tokens
    check_env_files()
    if os.environ.get("EUREKACLAW_DIR"):  # before its .env is looked for inside it
        check_home_dir(Path(os.environ["EUREKACLAW_DIR"]))
        check_env_files(Path(os.environ["EUREKACLAW_DIR"]) / ".env")
    try:
        settings = load_settings(**overrides)
    except OSError as exc:  # a settings file that cannot even be looked at
        raise MissingConfigError(f"the settings cannot be read: {exc.strerror or exc}") from None
    return check_settings(settings)


def _start_orchestrator(settings: Any, llm: str | None, as_json: bool, review_llm: str | None = None) -> Any:
    """Build the orchestrator and its backend before a session exists (a missing backend is
    exit 3 in well under a second, with nothing written)."""
    from eurekaclaw.console import err
    from eurekaclaw.orchestrator.meta import MetaOrchestrator
    from eurekaclaw.orchestrator.progress import RunUI

    ui = RunUI()
    _state["ui"] = ui  # the Ctrl+C message names the session it checkpointed
    orchestrator = MetaOrchestrator(settings, llm_override=llm, review_llm_override=review_llm, ui=ui)
    backend, name = orchestrator.prepare_backend()
    if name == "local":
        label = getattr(backend, "display_name", backend.model_for("main"))
        err().print(
            f"Using the local model {label}: results are demonstration quality, and its reviews do "
            "not count as verification. Configure Claude or an OpenAI-compatible server for real "
            "work (see README).",
            style="yellow", markup=False, highlight=False,
        )
    if orchestrator.profile_overrides:
        shown = ", ".join(f"{k.upper()}={v}" for k, v in orchestrator.profile_overrides.items())
        err().print(f"Demonstration settings (set them yourself to override): {shown}",
                    style="yellow", markup=False, highlight=False)
    return orchestrator


def _finish(result: Any, as_json: bool) -> None:
    from eurekaclaw.console import out

    if as_json:
        data = result.model_dump(mode="json")
        if not _usage_of(result.session_dir).get("cost_known", True):
            data["cost_usd"], data["cost_known"] = None, False
        out().print_json(json.dumps(data))
    else:
        _print_result(result)
    raise typer.Exit(0 if result.status == "completed" else EXIT_FAILED)


def _usage_of(session_dir: Any) -> dict[str, Any]:
    from pathlib import Path

    from eurekaclaw.store.session import read_usage

    return read_usage(Path(session_dir)) if session_dir else {}


def _cost_text(session_dir: Any, cost_usd: float) -> str:
    """"$0.0123", or "unknown" when a model without a price was called (never a false $0)."""
    usage = _usage_of(session_dir)
    if usage.get("cost_known", True):
        return f"${cost_usd:.4f}"
    priced = float(usage.get("priced_cost_usd") or 0.0)
    return f"unknown (≥ ${priced:.4f} priced)" if priced else "unknown"


def _print_result(result: Any) -> None:
    from rich.table import Table

    from eurekaclaw.console import out

    table = Table(title=f"session {result.session_id}: {result.status}", show_header=True)
    table.add_column("stage")
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    for rec in result.stages:
        table.add_row(rec.name, rec.status, rec.reason)
    out().print(table)
    if result.status != "completed" and result.status_reason:
        out().print(f"{result.status}: {result.status_reason}", markup=False, highlight=False)
    if result.theory_status:
        level = f" (weakest verification level: {result.weakest_level})" if result.weakest_level else ""
        if result.self_reviewed and result.weakest_level == "reviewed":
            # the weakest link was checked by nobody but the model that wrote it: say so on the
            # line that says "proved", not only in a note below it
            level = " (weakest verification level: reviewed by the proving model itself — self-review, no independent check)"
        out().print(f"theorem: [bold]{result.theory_status}[/]{level}")
        if result.self_reviewed:
            out().print(f"[yellow]{result.self_reviewed} lemma(s) reviewed only by the model that proved "
                        "them (self-review); use --review-llm for an independent reviewer[/]")
        if result.theory_status != "proved" and result.theory_reason:
            out().print(f"why: {result.theory_reason}", markup=False, highlight=False)
    out().print(f"cost: {_cost_text(result.session_dir, result.cost_usd)} over {result.llm_calls} LLM calls",
                markup=False, highlight=False)
    out().print(f"session directory: {result.session_dir}")
    if result.output_dir:
        out().print(f"artefacts copied to: {result.output_dir}")


def _launch(spec_fields: dict[str, Any], *, output: str | None, gate: str | None, budget: float | None, llm: str | None,
            as_json: bool, review_llm: str | None = None, budget_tokens: int | None = None) -> None:
    import asyncio

    from eurekaclaw.orchestrator.inputs import check_budget, check_output_dir
    from eurekaclaw.types.tasks import InputSpec

    budget = check_budget(budget)
    settings = _settings(gate, budget_tokens)
    from eurekaclaw.config import known_gate_mode

    # the settings above already refused a gate that is not a gate mode
    spec = InputSpec(**spec_fields, gate_mode=known_gate_mode(gate), budget_usd=budget,
                     output_dir=check_output_dir(output))
    orchestrator = _start_orchestrator(settings, llm, as_json, review_llm)
    result = asyncio.run(orchestrator.run(spec))
    _finish(result, as_json)


# ---------------------------------------------------------------------------------------------
# research commands
# ---------------------------------------------------------------------------------------------


@app.command()
@handle_errors
def prove(
    statement: Annotated[str, typer.Argument(help="The conjecture to prove, in words or LaTeX.")],
    domain: DomainOpt = None,
    output: OutputOpt = None,
    gate: GateOpt = None,
    budget_usd: BudgetOpt = None,
    budget_tokens: BudgetTokensOpt = None,
    llm: LLMOpt = None,
    review_llm: ReviewLLMOpt = None,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Prove a conjecture: formalize it into a lemma DAG and prove it bottom-up.

    Example: eurekaclaw prove "UCB1 has regret O(sqrt(K T log T))" --domain mab
    """
    from eurekaclaw.orchestrator.inputs import check_conjecture

    text = check_conjecture(statement)
    _launch({"mode": "prove", "statement": text, "domain": domain}, output=output, gate=gate, budget=budget_usd, llm=llm, as_json=json_out, review_llm=review_llm, budget_tokens=budget_tokens)


@app.command("from-papers")
@handle_errors
def from_papers(
    paper_ids: Annotated[list[str], typer.Argument(help="arXiv ids (1204.5721, math/0601001, 1706.03762v5), DOIs or Semantic Scholar ids.")],
    domain: DomainOpt = None,
    output: OutputOpt = None,
    gate: GateOpt = None,
    budget_usd: BudgetOpt = None,
    budget_tokens: BudgetTokensOpt = None,
    llm: LLMOpt = None,
    review_llm: ReviewLLMOpt = None,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Extend given papers: survey them, find a gap, choose a direction and work on it.

    Example: eurekaclaw from-papers 1204.5721 math/0601001 --domain mab
    """
    from eurekaclaw.orchestrator.inputs import check_paper_ids
    from eurekaclaw.orchestrator.preflight import check_papers_reachable

    ids = check_paper_ids(paper_ids)
    check_papers_reachable(_settings(gate, budget_tokens), ids)  # offline: exit 3, no session
    _launch({"mode": "from-papers", "paper_ids": ids, "domain": domain}, output=output, gate=gate, budget=budget_usd, llm=llm, as_json=json_out, review_llm=review_llm, budget_tokens=budget_tokens)


@app.command()
@handle_errors
def explore(
    area: Annotated[str, typer.Argument(help="A research area, e.g. 'multi-armed bandits with heavy tails'.")],
    domain: DomainOpt = None,
    output: OutputOpt = None,
    gate: GateOpt = None,
    budget_usd: BudgetOpt = None,
    budget_tokens: BudgetTokensOpt = None,
    llm: LLMOpt = None,
    review_llm: ReviewLLMOpt = None,
    max_pivots: Annotated[int, typer.Option(
        "--max-pivots", min=0, max=10,
        help="A direction that ends abandoned, refuted or contradicted hands over to the next scored one, "
             "at most this many times.")] = 2,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Explore an area: broad survey, scored research directions, then the full pipeline.

    Example: eurekaclaw explore "multi-armed bandits with heavy tails"
    """
    from eurekaclaw.orchestrator.inputs import check_area

    text = check_area(area)
    _launch({"mode": "explore", "statement": text, "domain": domain, "max_pivots": max_pivots}, output=output, gate=gate, budget=budget_usd, llm=llm, as_json=json_out, review_llm=review_llm, budget_tokens=budget_tokens)


# ---------------------------------------------------------------------------------------------
# session commands
# ---------------------------------------------------------------------------------------------


@app.command()
@handle_errors
def resume(
    session_id: Annotated[str, typer.Argument(help="Session id or a unique prefix (≥ 6 characters).")],
    budget_usd: BudgetOpt = None,
    budget_tokens: BudgetTokensOpt = None,
    llm: LLMOpt = None,
    review_llm: ReviewLLMOpt = None,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Continue a paused, interrupted or partial session from its last checkpoint."""
    import asyncio

    from eurekaclaw.orchestrator.inputs import check_budget
    from eurekaclaw.store.session import Workspace

    budget_usd = check_budget(budget_usd)
    settings = _settings(budget_tokens=budget_tokens)
    session = Workspace(settings.eurekaclaw_dir).resolve(session_id)
    orchestrator = _start_orchestrator(settings, llm, json_out, review_llm)
    result = asyncio.run(orchestrator.resume(session, budget_usd=budget_usd))
    _finish(result, json_out)


# --- registered commands ---
from eurekaclaw import cli_manage as _manage  # noqa: E402 - it uses the options defined above

app.command("pause")(_manage.pause)
app.command("sessions")(_manage.sessions)
app.command("eval-session")(_manage.eval_session)
app.command("install-skills")(_manage.install_skills)
app.command("skills")(_manage.skills)
app.command("doctor")(_manage.doctor)
from eurekaclaw.ui.command import ui as _ui_command  # noqa: E402 - registered after the shared options

app.command("ui")(_ui_command)
from eurekaclaw.review.cli import review as _review_command  # noqa: E402

app.command("review")(handle_errors(_review_command))
from eurekaclaw.bench.cli import bench_command as _bench_command  # noqa: E402

app.command("bench")(handle_errors(_bench_command))
from eurekaclaw.onboard import init_command as _init_command  # noqa: E402

app.command("init")(handle_errors(_init_command))
# --- end registered commands ---


def _show_version(value: bool) -> None:
    if value:
        from eurekaclaw import __version__

        typer.echo(f"eurekaclaw {__version__}")
        raise typer.Exit(0)


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_show_version, help="Show the version and exit.")
    ] = False,
) -> None:
    """EurekaClaw command-line interface."""
