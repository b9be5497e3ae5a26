"""What every route group of the web app shares: the page renderer, the CSRF check, the session
lookup and the one-line error a handler raises.

Handlers load the settings and read the store afresh on every request; the only thing held
here is the token that guards the app (and the CSRF token derived from it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse
from starlette.templating import Jinja2Templates

from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.ui import data
from eurekaclaw.ui.security import CSRF_FIELD, CSRF_HEADER, csrf_token, is_local, local_location, same

HERE = Path(__file__).resolve().parent


class UIError(Exception):
    """A request the user can fix: shown as one line on the error page with this status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def redirect(path: str) -> RedirectResponse:
    """A 303 to a page of this app: every redirect the app makes stays on its own origin."""
    location = path if is_local(path) else local_location(path)
    return RedirectResponse(location, status_code=303)


def settings() -> Any:
    from eurekaclaw.config import load_settings

    return load_settings()


def workspace() -> Workspace:
    return Workspace(settings().eurekaclaw_dir)


def session_of(request: Request) -> SessionDir:
    session = data.find_session(workspace(), request.path_params["sid"])
    if session is None:
        raise UIError(404, "no such session")
    return session


def budget(value: Any) -> float | None:
    text = str(value or "").strip()
    if not text:
        return None
    try:
        amount = float(text)
    except ValueError:
        raise UIError(400, f"budget {text!r} is not a number of dollars") from None
    if not amount >= 0:
        raise UIError(400, "the budget cannot be negative")
    return amount


class Pages:
    """Templates with the CSRF token in every form, and the check every state change calls."""

    def __init__(self, token: str, hosts: set[str]) -> None:
        self.token = token
        self.hosts = hosts
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals["csrf"] = csrf_token(token)
        self.templates.env.globals["csrf_field"] = CSRF_FIELD

    def page(self, request: Request, name: str, code: int = 200, **context: Any) -> HTMLResponse:
        return self.templates.TemplateResponse(request, name, context, status_code=code)

    async def check_csrf(self, request: Request) -> dict[str, Any]:
        """State changes need the CSRF token (form field or header) and, when the browser
        says where the request comes from, our own origin. Returns the form."""
        origin = request.headers.get("origin")
        if origin and origin.split("://", 1)[-1].lower() not in self.hosts:
            raise UIError(403, "cross-origin request refused")
        form = dict(await request.form())
        sent = request.headers.get(CSRF_HEADER) or form.get(CSRF_FIELD)
        if not same(sent if isinstance(sent, str) else None, csrf_token(self.token)):
            raise UIError(403, "missing or wrong CSRF token; reload the page")
        return form
