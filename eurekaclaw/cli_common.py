"""What every `eurekaclaw` command shares: the option types, settings from the command line,
logging switched on through the console, and the one-line error handling (a readable line and a
meaningful exit code for every error a user can cause, never a traceback)."""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from types import ModuleType
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


class _Deferred(type):
    """The metaclass of a stand-in class: the real class is imported at its first real use
    (a call, an attribute, an isinstance check), so a module importing it stays cheap."""

    _real: Callable[[], Any]

    def __getattr__(cls, name: str) -> Any:
        return getattr(cls._real(), name)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._real()(*args, **kwargs)

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls._real())


def _stand_in(module: str, name: str) -> ModuleType:
    def real() -> Any:
        return getattr(importlib.import_module(module), name)

    stand_in = ModuleType(module)
    setattr(stand_in, name, _Deferred(name, (), {"_real": staticmethod(real), "__module__": module}))
    return stand_in


# Typer's help renderer imports rich's Markdown and Traceback at its top (markdown-it, pygments,
# attrs: two thirds of the CPU `eurekaclaw --help` costs), though help in "rich" markup mode uses
# neither and this app shows no pretty tracebacks.
_UNUSED_BY_HELP = (("rich.markdown", "Markdown"), ("rich.traceback", "Traceback"))


def import_help_renderer() -> None:
    """Import typer's help renderer with those two classes deferred. The stand-ins live in
    sys.modules only during that import, so any other importer gets the real modules; if a
    Typer version uses them differently at import, the renderer is imported plainly instead."""
    if "typer.rich_utils" in sys.modules:
        return
    stand_ins = {module: _stand_in(module, name) for module, name in _UNUSED_BY_HELP if module not in sys.modules}
    sys.modules.update(stand_ins)
    try:
        importlib.import_module("typer.rich_utils")
    except Exception:  # noqa: BLE001 - the plain import below raises whatever is really wrong
        sys.modules.pop("typer.rich_utils", None)
    finally:
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]
    importlib.import_module("typer.rich_utils")


class OneLineErrors(typer.core.TyperGroup):
    """Usage errors (unknown option, missing argument, bad value) end like every other error:
    one line on stderr and exit 2, instead of Typer's framed box."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        import_help_renderer()
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

    def get_help_option(self, ctx: Any) -> Any:
        """Typer's --help flag, absent from the command line, defaults to None, and Typer builds
        a pydantic validator to coerce that None (pydantic's import is a third of what
        `eurekaclaw prove --help` costs); a False default is a bool, which Typer passes as is."""
        option = super().get_help_option(ctx)
        if option is not None and option.default is None:
            option.default = False
        return option


cli_state: dict[str, Any] = {"verbose": False}

DomainOpt = Annotated[
    str | None, typer.Option("--domain", help="Domain plugin (e.g. mab); default: detected from the text.")
]
OutputOpt = Annotated[
    str | None,
    # no square brackets in help texts: rich markup would swallow them
    typer.Option("--output", "-o", help="Where to copy the session's artefacts (default: ./results/<session_id>)."),
]
GateOpt = Annotated[str | None, typer.Option("--gate", help="Pause between stages: none | auto | human.")]
BudgetOpt = Annotated[
    float | None, typer.Option("--budget-usd", min=0.0, help="Stop cleanly before spending more than this.")
]
BudgetTokensOpt = Annotated[
    int | None,
    typer.Option(
        "--budget-tokens",
        min=0,
        help="Stop cleanly before using more tokens than this "
        "(input + output + cache); the cap for models without a known price.",
    ),
]
LLMOpt = Annotated[
    str | None,
    typer.Option(
        "--llm", help="Backend override: anthropic | openai_compat | local | scripted:<file> | replay:<session>."
    ),
]
ReviewLLMOpt = Annotated[
    str | None,
    typer.Option(
        "--review-llm",
        help="A separate model for proof reviews, same form as --llm; "
        "without it the proving model's reviews are recorded as self-reviews.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print a machine-readable result on stdout.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Show debug logs and tracebacks.")]


@dataclass(frozen=True)
class RunOptions:
    """The options every research command (prove, from-papers, explore) takes."""

    domain: str | None = None
    output: str | None = None
    gate: str | None = None
    budget_usd: float | None = None
    budget_tokens: int | None = None
    llm: str | None = None
    review_llm: str | None = None
    json_out: bool = False


_RUN_OPTION_TYPES: dict[str, Any] = {
    "domain": DomainOpt,
    "output": OutputOpt,
    "gate": GateOpt,
    "budget_usd": BudgetOpt,
    "budget_tokens": BudgetTokensOpt,
    "llm": LLMOpt,
    "review_llm": ReviewLLMOpt,
    "json_out": JsonOpt,
}


def run_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Declare the research options once: Typer sees them as ordinary options after the
    command's arguments, and the command receives them together as `run: RunOptions`."""
    own = [p for name, p in inspect.signature(func, eval_str=True).parameters.items() if name != "run"]
    arguments = [p for p in own if p.default is inspect.Parameter.empty]
    rest = [p for p in own if p.default is not inspect.Parameter.empty]
    shared = [
        inspect.Parameter(
            f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=f.default, annotation=_RUN_OPTION_TYPES[f.name]
        )
        for f in fields(RunOptions)
    ]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        run = RunOptions(**{f.name: kwargs.pop(f.name) for f in fields(RunOptions) if f.name in kwargs})
        return func(*args, run=run, **kwargs)

    params = [*arguments, *shared, *rest]
    wrapper.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper


def _log_input_error(message: str) -> None:
    """Record a rejected command in $EUREKACLAW_DIR/events.jsonl (best effort, nothing else)."""
    try:
        import os
        from pathlib import Path

        from eurekaclaw.store.files import append_jsonl
        from eurekaclaw.types.artifacts import utcnow

        root = Path(os.environ.get("EUREKACLAW_DIR", "~/.eurekaclaw")).expanduser()
        append_jsonl(
            root / "events.jsonl",
            {"ts": utcnow().isoformat(), "kind": "input_error", "message": message, "argv": sys.argv[1:]},
        )
    except Exception:  # noqa: BLE001 - logging an error must never raise another one
        pass


def handle_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """One readable line and a meaningful exit code for every error a user can cause."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        verbose = bool(kwargs.get("verbose"))
        cli_state["verbose"] = verbose
        from rich.text import Text

        from eurekaclaw.console import err, setup_logging

        setup_logging(verbose)

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
            sid = getattr(cli_state.get("ui"), "session_id", "") or ""
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


def cli_settings(gate: str | None = None, budget_tokens: int | None = None) -> Any:
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
