"""The `eurekaclaw` command: parse, call one orchestrator entry point, render.

Heavy modules are imported inside the commands so `eurekaclaw --help` starts fast.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): Typer
# reads the command signatures at every start and would compile and evaluate each string twice.

from typing import Annotated, Any

import typer

from eurekaclaw.cli_common import (
    BudgetOpt,
    BudgetTokensOpt,
    GateOpt,
    JsonOpt,
    LLMOpt,
    OneLineErrors,
    ReviewLLMOpt,
    RunOptions,
    VerboseOpt,
    cli_settings,
    cli_state,
    handle_errors,
    run_options,
)

app = typer.Typer(
    cls=OneLineErrors,
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


def _start_orchestrator(settings: Any, llm: str | None, as_json: bool, review_llm: str | None = None) -> Any:
    """Build the orchestrator and its backend before a session exists (a missing backend is
    exit 3 in well under a second, with nothing written)."""
    from eurekaclaw.console import err
    from eurekaclaw.orchestrator.meta import MetaOrchestrator
    from eurekaclaw.orchestrator.progress import RunUI

    ui = RunUI()
    cli_state["ui"] = ui  # the Ctrl+C message names the session it checkpointed
    orchestrator = MetaOrchestrator(settings, llm_override=llm, review_llm_override=review_llm, ui=ui)
    backend, name = orchestrator.prepare_backend()
    if name == "local":
        label = getattr(backend, "display_name", backend.model_for("main"))
        err().print(
            f"Using the local model {label}: results are demonstration quality, and its reviews do "
            "not count as verification. Configure Claude or an OpenAI-compatible server for real "
            "work (see README).",
            style="yellow",
            markup=False,
            highlight=False,
        )
    if orchestrator.profile_overrides:
        shown = ", ".join(f"{k.upper()}={v}" for k, v in orchestrator.profile_overrides.items())
        err().print(
            f"Demonstration settings (set them yourself to override): {shown}",
            style="yellow",
            markup=False,
            highlight=False,
        )
    return orchestrator


def _launch(spec_fields: dict[str, Any], run: RunOptions) -> None:
    import asyncio

    from eurekaclaw.cli_result import finish_run
    from eurekaclaw.config import known_gate_mode
    from eurekaclaw.orchestrator.inputs import check_budget, check_output_dir
    from eurekaclaw.types.tasks import InputSpec

    budget = check_budget(run.budget_usd)
    settings = cli_settings(run.gate, run.budget_tokens)
    # the settings above already refused a gate that is not a gate mode
    spec = InputSpec(
        **spec_fields,
        domain=run.domain,
        gate_mode=known_gate_mode(run.gate),
        budget_usd=budget,
        output_dir=check_output_dir(run.output),
    )
    orchestrator = _start_orchestrator(settings, run.llm, run.json_out, run.review_llm)
    result = asyncio.run(orchestrator.run(spec))
    finish_run(result, run.json_out)


# ---------------------------------------------------------------------------------------------
# research commands
# ---------------------------------------------------------------------------------------------


@app.command()
@handle_errors
@run_options
def prove(
    statement: Annotated[str, typer.Argument(help="The conjecture to prove, in words or LaTeX.")],
    run: RunOptions,
    verbose: VerboseOpt = False,
) -> None:
    """Prove a conjecture: formalize it into a lemma DAG and prove it bottom-up.

    Example: eurekaclaw prove "UCB1 has regret O(sqrt(K T log T))" --domain mab
    """
    from eurekaclaw.orchestrator.inputs import check_conjecture

    text = check_conjecture(statement)
    _launch({"mode": "prove", "statement": text}, run)


@app.command("from-papers")
@handle_errors
@run_options
def from_papers(
    paper_ids: Annotated[
        list[str],
        typer.Argument(help="arXiv ids (1204.5721, math/0601001, 1706.03762v5), DOIs or Semantic Scholar ids."),
    ],
    run: RunOptions,
    verbose: VerboseOpt = False,
) -> None:
    """Extend given papers: survey them, find a gap, choose a direction and work on it.

    Example: eurekaclaw from-papers 1204.5721 math/0601001 --domain mab
    """
    from eurekaclaw.orchestrator.inputs import check_paper_ids
    from eurekaclaw.orchestrator.preflight import check_papers_reachable

    ids = check_paper_ids(paper_ids)
    check_papers_reachable(cli_settings(run.gate, run.budget_tokens), ids)  # offline: exit 3, no session
    _launch({"mode": "from-papers", "paper_ids": ids}, run)


@app.command()
@handle_errors
@run_options
def explore(
    area: Annotated[str, typer.Argument(help="A research area, e.g. 'multi-armed bandits with heavy tails'.")],
    run: RunOptions,
    max_pivots: Annotated[
        int,
        typer.Option(
            "--max-pivots",
            min=0,
            max=10,
            help="A direction that ends abandoned, refuted or contradicted hands over to the next scored one, "
            "at most this many times.",
        ),
    ] = 2,
    verbose: VerboseOpt = False,
) -> None:
    """Explore an area: broad survey, scored research directions, then the full pipeline.

    Example: eurekaclaw explore "multi-armed bandits with heavy tails"
    """
    from eurekaclaw.orchestrator.inputs import check_area

    text = check_area(area)
    _launch({"mode": "explore", "statement": text, "max_pivots": max_pivots}, run)


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
    gate: GateOpt = None,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Continue a paused, interrupted or partial session from its last checkpoint.

    The session keeps the gate it started with unless --gate names another (e.g. --gate auto to
    let a run started under a human gate go on unattended).
    """
    import asyncio

    from eurekaclaw.cli_result import finish_run
    from eurekaclaw.config import known_gate_mode
    from eurekaclaw.orchestrator.inputs import check_budget
    from eurekaclaw.store.session import Workspace

    budget_usd = check_budget(budget_usd)
    settings = cli_settings(gate, budget_tokens=budget_tokens)
    session = Workspace(settings.eurekaclaw_dir).resolve(session_id)
    orchestrator = _start_orchestrator(settings, llm, json_out, review_llm)
    result = asyncio.run(
        orchestrator.resume(session, budget_usd=budget_usd, gate_mode=known_gate_mode(gate) if gate else None)
    )
    finish_run(result, json_out)


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
