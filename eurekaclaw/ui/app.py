"""The `eurekaclaw ui` web app: the route groups of eurekaclaw.ui.routes over the session store
and the orchestrator, one Starlette app behind the Guard (token, Host check, security headers).

The Guard wraps the whole app, so every route, the static files and unknown paths alike, is
checked before any handler runs; state-changing handlers also call Pages.check_csrf.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from eurekaclaw.errors import EurekaError
from eurekaclaw.ui.routes import bench, control, live, pages, paper, review, skills
from eurekaclaw.ui.security import Guard, LaunchCodes
from eurekaclaw.ui.web import HERE, Pages, UIError

ROUTE_GROUPS = (pages, live, control, paper, skills, review, bench)

__all__ = ["UIError", "create_app"]


def create_app(token: str, hosts: set[str], launch: LaunchCodes | None = None) -> Any:
    ui = Pages(token, hosts)
    routes: list[BaseRoute] = [route for group in ROUTE_GROUPS for route in group.routes(ui)]
    routes.append(Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"))
    app = Starlette(routes=routes, exception_handlers=_error_handlers(ui))
    return Guard(app, token=token, hosts=hosts, launch=launch)


def _error_handlers(ui: Pages) -> dict[Any, Any]:
    """Every failure ends in one readable line on the error page, never a traceback."""

    async def on_ui_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, UIError)
        return ui.page(request, "error.html", code=exc.status, message=exc.message)

    async def on_eureka_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, EurekaError)
        status = 400 if exc.exit_code == 2 else 409
        return ui.page(request, "error.html", code=status, message=exc.user_message())

    async def on_bug(request: Request, exc: Exception) -> Response:
        # the traceback goes to the server's log, the page gets one scrubbed line
        import logging

        from eurekaclaw.redact import scrub

        logging.getLogger(__name__).error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return ui.page(request, "error.html", code=500, message=scrub(f"internal error: {type(exc).__name__}: {exc}"))

    return {UIError: on_ui_error, EurekaError: on_eureka_error, Exception: on_bug}
