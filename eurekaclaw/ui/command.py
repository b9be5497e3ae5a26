"""`eurekaclaw ui`: serve the local web app (token-guarded, 127.0.0.1 unless told otherwise)."""

from __future__ import annotations

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
    verbose: VerboseOpt = False,
) -> None:
    """Launch, watch and guide runs in the browser.

    Prints a URL carrying a fresh random token; every request must present it (the page keeps
    it in a cookie). Example: eurekaclaw ui --open
    """
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
