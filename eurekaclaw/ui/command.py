"""`eurekaclaw ui`: serve the local web app (token-guarded, 127.0.0.1 unless told otherwise)."""

# Annotations are objects here, not strings (no `from __future__ import annotations`): Typer
# reads the command signatures at every start and would compile and evaluate each string twice.

from typing import Annotated

import typer

from eurekaclaw.cli_common import VerboseOpt, handle_errors
from eurekaclaw.errors import BadInputError, MissingConfigError


@handle_errors
def ui(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port (0: any free port).")] = 8765,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the app in the default browser.")] = False,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow a non-loopback --host: anyone who can reach it and "
            "has the token can start runs that spend your LLM budget.",
        ),
    ] = False,
    show_url: Annotated[
        bool, typer.Option("--url", help="Print the URL (with its token) of the server already running, and exit.")
    ] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Launch, watch and guide runs in the browser.

    Prints a URL carrying a fresh random token; every request must present it (the page keeps
    it in a cookie). Example: eurekaclaw ui --open
    """
    if show_url:
        _print_running_url()
        return
    from eurekaclaw.ui.security import is_loopback

    if not is_loopback(host) and not allow_remote:
        raise BadInputError(
            f"--host {host} is not a loopback address; add --allow-remote if you "
            "really want the app reachable from other machines"
        )
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ModuleNotFoundError:
        raise MissingConfigError("the web app needs its extra: pip install 'eurekaclaw[ui]'") from None
    from eurekaclaw.ui.server import serve

    serve(host, port, open_browser=open_browser, verbose=verbose, uvicorn=uvicorn)


def _print_running_url() -> None:
    """The running server's URL on stdout; none running is one line on stderr and exit 3."""
    from eurekaclaw.console import err, out
    from eurekaclaw.errors import EXIT_CONFIG
    from eurekaclaw.ui.server import running_url

    url = running_url()
    if url is None:
        err().print("no EurekaClaw UI server is running; start one with `eurekaclaw ui`", markup=False, highlight=False)
        raise typer.Exit(EXIT_CONFIG)
    out().print(url, markup=False, highlight=False, soft_wrap=True)
