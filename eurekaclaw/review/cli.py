"""The `eurekaclaw review <session>` command (registered in eurekaclaw/cli.py).

Only typer is imported at module level, so `eurekaclaw --help` stays fast; the session, the
writer and the model client are loaded when the command runs.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

SessionArg = Annotated[str, typer.Argument(help="Session id or a unique prefix (see `eurekaclaw sessions`).")]
AskOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--ask", "-a", help="A question about the paper (repeatable); answered and saved, then the command ends."
    ),
]
ReviseOpt = Annotated[
    str | None,
    typer.Option(
        "--revise",
        "-r",
        help="Feedback for a revision: re-runs what it needs (prose, experiment, "
        "theory) and writes paper_v<n> beside the earlier versions.",
    ),
]
HistoryOpt = Annotated[bool, typer.Option("--history", help="Show the questions, answers and versions so far.")]
LLMOpt = Annotated[
    str | None,
    typer.Option("--llm", help="Backend override: anthropic | openai_compat | local | scripted:<file>."),
]
BudgetOpt = Annotated[
    float | None,
    typer.Option("--budget-usd", min=0.0, help="Stop cleanly before this review spends more than this."),
]
BudgetTokensOpt = Annotated[
    int | None,
    typer.Option("--budget-tokens", min=0, help="Stop cleanly before this review uses more tokens than this."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print a machine-readable result on stdout.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Show debug logs and tracebacks.")]

INTERACTIVE_HELP = "Ask a question, or ':revise <feedback>', ':history', ':quit'."


def review(
    session_id: SessionArg,
    ask: AskOpt = None,
    revise: ReviseOpt = None,
    history: HistoryOpt = False,
    llm: LLMOpt = None,
    budget_usd: BudgetOpt = None,
    budget_tokens: BudgetTokensOpt = None,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Ask questions about a finished paper, or revise it.

    Answers cite the paper's sections and lemmas with their recorded verification levels; a
    sentence that claims more than the records is removed and corrected. A revision first decides
    (and shows) how far the feedback reaches: prose only (the writer), the experiment, or theory
    for named lemmas or the whole proof; those stages re-run on a copy of the session and
    paper_v<n>.tex/.md/.pdf is written beside the earlier versions. Levels after a re-run come
    only from the checkers; a failed re-run changes nothing. Without --ask or --revise the
    command reads questions interactively.

    Examples:

      eurekaclaw review 3f2a9c --ask "Which lemma carries the main difficulty?"

      eurekaclaw review 3f2a9c --revise "Shorten the introduction and explain the constant 8."

      eurekaclaw review 3f2a9c --revise "The proof of Lemma L2 skips the union bound; fix it."
    """
    import asyncio

    from eurekaclaw.review.runner import ReviewRunner

    runner = ReviewRunner.open(session_id, llm=llm, budget_usd=budget_usd, budget_tokens=budget_tokens)
    runner.on_scope = _show_scope
    if history:
        _emit(runner.history_view(), json_out, runner.history_text())
        raise typer.Exit(0)
    questions = list(ask or [])
    if not questions and revise is None:
        code = asyncio.run(_interactive(runner, json_out))
        raise typer.Exit(code)
    code = asyncio.run(_batch(runner, questions, revise, json_out))
    raise typer.Exit(code)


async def _batch(runner: Any, questions: list[str], revise: str | None, as_json: bool) -> int:
    """--ask/--revise: all calls in one event loop (a backend's connections belong to one)."""
    result: dict[str, Any] = {"session_id": runner.session.session_id, "answers": []}
    texts: list[str] = []
    code = 0
    try:
        for question in questions:
            answer = await runner.ask(question)
            result["answers"].append(answer.as_json())
            texts.append(f"Q: {question}\n\n{answer.text()}")
        if revise is not None:
            outcome = await runner.revise(revise)
            result["revision"] = outcome.as_json()
            texts.append(outcome.text())
            code = 0 if outcome.ok else 1
    finally:
        await runner.close()
    result.update(runner.cost_view())
    texts.append(runner.cost_line())
    _emit(result, as_json, "\n\n".join(texts))
    return code


def _show_scope(scope: Any) -> None:
    """Before a revision runs: what it will re-run and why (stderr, so --json stays parseable;
    the JSON result carries the same under revision.scope)."""
    from eurekaclaw.console import err

    err().print(scope.line(), markup=False, highlight=False)
    for note in scope.notes:
        err().print(f"  note: {note}", markup=False, highlight=False)


def _emit(data: Any, as_json: bool, text: str) -> None:
    import json

    from eurekaclaw.console import out

    if as_json:
        out().print_json(json.dumps(data, ensure_ascii=False))
    else:
        out().print(text, markup=False, highlight=False)


async def _interactive(runner: Any, as_json: bool) -> int:
    """One question per line from the terminal (or piped stdin), until ':quit' or end of input."""
    from eurekaclaw.console import err

    tty = sys.stdin.isatty()
    if tty:
        err().print(
            f"Reviewing session {runner.session.session_id}, paper version {runner.version()}. {INTERACTIVE_HELP}",
            markup=False,
            highlight=False,
        )
    code = 0
    try:
        code = await _loop(runner, as_json, tty)
    finally:
        await runner.close()
    if not as_json:
        _emit({}, False, runner.cost_line())
    return code


async def _loop(runner: Any, as_json: bool, tty: bool) -> int:
    from eurekaclaw.console import err

    code = 0
    while True:
        if tty:
            err().print("review> ", end="", markup=False, highlight=False)
        line = await asyncio_readline()
        if line is None:
            break
        line = line.strip()
        if not line:
            continue
        if line in (":quit", ":q", ":exit"):
            break
        if line == ":history":
            _emit(runner.history_view(), as_json, runner.history_text())
            continue
        if line.startswith(":revise"):
            feedback = line[len(":revise") :].strip()
            if not feedback:
                err().print("give the feedback after :revise", markup=False, highlight=False)
                continue
            code = code or await _turn(runner.revise(feedback), as_json)
            continue
        if line.startswith(":"):
            err().print(INTERACTIVE_HELP, markup=False, highlight=False)
            continue
        code = code or await _turn(runner.ask(line), as_json)
    return code


async def _turn(call: Any, as_json: bool) -> int:
    """One interactive question or revision: its result shown, or its error as one line when
    the review can go on (the exit code it leaves); other errors end the review."""
    from eurekaclaw.console import err
    from eurekaclaw.errors import EurekaError

    try:
        result = await call
    except EurekaError as exc:
        if not _survivable(exc):
            raise
        err().print(f"error: {exc.user_message()}", markup=False, highlight=False)
        return exc.exit_code
    _emit(result.as_json(), as_json, result.text())
    return 0 if getattr(result, "ok", True) else 1


def _survivable(exc: Exception) -> bool:
    """An unusable reply or a bad question ends that turn; a budget, configuration or
    authentication problem ends the review."""
    from eurekaclaw.errors import BadInputError, LLMOutputError, LLMRetryableError

    return isinstance(exc, BadInputError | LLMOutputError | LLMRetryableError)


async def asyncio_readline() -> str | None:
    import asyncio

    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return line if line else None
