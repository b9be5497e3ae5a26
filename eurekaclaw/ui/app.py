"""The `eurekaclaw ui` web app: Starlette routes over the session store and the orchestrator.

Every handler loads the settings and reads the store afresh; the only thing this module holds
is the token that guards it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from eurekaclaw.errors import EurekaError
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.ui import data
from eurekaclaw.ui.security import CSRF_FIELD, CSRF_HEADER, Guard, csrf_token, same

HERE = Path(__file__).resolve().parent
SSE_POLL_S = 0.5
STATUS_FILTERS = ("running", "completed", "partial", "paused", "interrupted", "failed", "proved", "refuted")


def _settings() -> Any:
    from eurekaclaw.config import load_settings

    return load_settings()


def _workspace() -> Workspace:
    return Workspace(_settings().eurekaclaw_dir)


class UIError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def _session(request: Request) -> SessionDir:
    session = data.find_session(_workspace(), request.path_params["sid"])
    if session is None:
        raise UIError(404, "no such session")
    return session


def create_app(token: str, hosts: set[str]) -> Any:
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals["csrf"] = csrf_token(token)
    templates.env.globals["csrf_field"] = CSRF_FIELD

    def page(request: Request, name: str, code: int = 200, **context: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, context, status_code=code)

    async def check_csrf(request: Request) -> dict[str, Any]:
        """State changes need the CSRF token (form field or header) and, when the browser
        says where the request comes from, our own origin."""
        origin = request.headers.get("origin")
        if origin and origin.split("://", 1)[-1].lower() not in hosts:
            raise UIError(403, "cross-origin request refused")
        form = dict(await request.form())
        sent = request.headers.get(CSRF_HEADER) or form.get(CSRF_FIELD)
        if not same(sent if isinstance(sent, str) else None, csrf_token(token)):
            raise UIError(403, "missing or wrong CSRF token; reload the page")
        return form

    async def sessions(request: Request) -> HTMLResponse:
        query = request.query_params.get("q", "")[:200]
        status = request.query_params.get("status", "")
        status = status if status in STATUS_FILTERS else ""
        rows = await run_in_threadpool(data.session_rows, _workspace(), query, status)
        return page(request, "sessions.html", rows=rows, q=query, status=status, filters=STATUS_FILTERS)

    async def session_page(request: Request) -> HTMLResponse:
        view = await run_in_threadpool(data.session_view, _workspace(), _session(request))
        return page(request, "session.html", s=view)

    async def session_live(request: Request) -> HTMLResponse:
        view = await run_in_threadpool(data.session_view, _workspace(), _session(request))
        return page(request, "_live.html", s=view)

    async def events(request: Request) -> StreamingResponse:
        session = _session(request)
        try:
            first = int(request.headers.get("last-event-id") or request.query_params.get("from") or 0)
        except ValueError:
            first = 0
        return StreamingResponse(_event_stream(request, session, first), media_type="text/event-stream",
                                 headers={"x-accel-buffering": "no"})

    async def session_file(request: Request) -> Response:
        session = _session(request)
        path = data.session_file(session, request.path_params["name"])
        if path is None:
            raise UIError(404, "no such file in this session")
        return FileResponse(path, media_type=data.SERVED_SUFFIXES[path.suffix.lower()],
                            content_disposition_type="inline", filename=path.name)

    async def paper(request: Request) -> HTMLResponse:
        session = _session(request)
        view = await run_in_threadpool(data.session_view, _workspace(), session)
        md = data.session_file(session, "paper.md")
        html = _markdown(md.read_text(encoding="utf-8", errors="replace")) if md else None
        pdf = "paper.pdf" if data.session_file(session, "paper.pdf") else None
        return page(request, "paper.html", s=view, paper_html=html, pdf=pdf)

    async def evaluation(request: Request) -> HTMLResponse:
        view = await run_in_threadpool(data.session_view, _workspace(), _session(request))
        return page(request, "eval.html", s=view, report=view["eval"] if isinstance(view["eval"], dict) else None)

    async def evaluate(request: Request) -> Response:
        session = _session(request)
        await check_csrf(request)
        from eurekaclaw.orchestrator.evaluation import evaluate as run_eval

        await run_in_threadpool(run_eval, _settings(), session.session_id, None)
        return RedirectResponse(f"/sessions/{session.session_id}/eval", status_code=303)

    async def pause(request: Request) -> Response:
        session = _session(request)
        await check_csrf(request)
        if session.running_pid() is None:
            raise UIError(409, f"session {session.session_id} is not running")
        session.request_pause()  # the same request file `eurekaclaw pause` writes
        return RedirectResponse(f"/sessions/{session.session_id}", status_code=303)

    async def resume(request: Request) -> Response:
        session = _session(request)
        form = await check_csrf(request)
        from eurekaclaw.ui.runs import resume_run

        budget = _budget(form.get("budget_usd"))
        sid = await run_in_threadpool(resume_run, _settings(), session, budget)
        return RedirectResponse(f"/sessions/{sid}", status_code=303)

    async def gate(request: Request) -> Response:
        session = _session(request)
        form = await check_csrf(request)
        from eurekaclaw.ui.runs import answer_gate

        approve = form.get("answer") == "approve"
        if not answer_gate(session, approve, str(form.get("feedback") or "")):
            raise UIError(409, "this session is not waiting at a gate")
        return RedirectResponse(f"/sessions/{session.session_id}", status_code=303)

    async def launch_form(request: Request) -> HTMLResponse:
        from eurekaclaw.domains import discover_plugins

        domains = sorted(discover_plugins())
        return page(request, "launch.html", domains=domains, form={}, error=None)

    async def launch(request: Request) -> Response:
        form = await check_csrf(request)
        from eurekaclaw.domains import discover_plugins
        from eurekaclaw.orchestrator.inputs import check_area, check_conjecture, check_paper_ids
        from eurekaclaw.types.tasks import InputSpec
        from eurekaclaw.ui.runs import launch_run

        domains = sorted(discover_plugins())
        try:
            mode = str(form.get("mode") or "")
            if mode not in ("prove", "from-papers", "explore"):
                raise UIError(400, "choose prove, from-papers or explore")
            gate_mode = str(form.get("gate") or "") or None
            if gate_mode not in (None, "none", "auto", "human"):
                raise UIError(400, "gate must be none, auto or human")
            domain = str(form.get("domain") or "") or None
            if domain is not None and domain not in domains:
                raise UIError(400, f"unknown domain {domain!r}")
            fields: dict[str, Any] = {"mode": mode, "domain": domain, "gate_mode": gate_mode,
                                      "budget_usd": _budget(form.get("budget_usd"))}
            if mode == "from-papers":
                fields["paper_ids"] = check_paper_ids(str(form.get("paper_ids") or "").split())
            else:
                # the CLI's own checks: a vague statement or a wordless area is refused before
                # any session or model call
                check = check_area if mode == "explore" else check_conjecture
                fields["statement"] = check(str(form.get("statement") or ""))
            spec = InputSpec(**fields)
            # the run uses the backend the user configured, as the CLI would (no override here)
            sid = await run_in_threadpool(launch_run, _settings(), spec)
        except (UIError, EurekaError) as exc:
            message = exc.message if isinstance(exc, UIError) else exc.user_message()
            status = exc.status if isinstance(exc, UIError) else (400 if exc.exit_code == 2 else 409)
            return page(request, "launch.html", code=status, domains=domains, form=form, error=message)
        return RedirectResponse(f"/sessions/{sid}", status_code=303)

    async def review_page(request: Request) -> HTMLResponse:
        session = _session(request)
        from eurekaclaw.ui.review import review_state

        view = await run_in_threadpool(data.session_view, _workspace(), session)
        state = await run_in_threadpool(review_state, session.session_id)
        return page(request, "review.html", s=view, r=state)

    async def review_post(request: Request) -> Response:
        session = _session(request)
        form = await check_csrf(request)
        from eurekaclaw.orchestrator.inputs import clean_statement
        from eurekaclaw.ui.review import review_call

        question = str(form.get("question") or "").strip()
        feedback = str(form.get("feedback") or "").strip()
        if bool(question) == bool(feedback):
            raise UIError(400, "give either a question or revision feedback")
        if question:
            question = clean_statement(question, what="question")
        else:
            feedback = clean_statement(feedback, what="feedback")
        await run_in_threadpool(lambda: review_call(session.session_id, question=question, feedback=feedback))
        return RedirectResponse(f"/sessions/{session.session_id}/review", status_code=303)

    async def skills(request: Request, report: str = "", code: int = 200) -> HTMLResponse:
        from eurekaclaw.orchestrator.skills_view import skills_table

        _table, rows, problems = await run_in_threadpool(skills_table, _settings())
        return page(request, "skills.html", code=code, rows=rows, problems=problems, report=report)

    async def skills_install(request: Request) -> HTMLResponse:
        form = await check_csrf(request)
        from eurekaclaw.skills.install import install_skills

        source = str(form.get("source") or "").strip() or None
        if source is not None and not source.startswith("https://"):
            # the app reads nothing outside EUREKACLAW_DIR: local folders and archives (and
            # file:// or ssh remotes) are installed from the terminal
            return await skills(request, code=400, report=(
                "error: from the browser, install the built-in skills or an https:// git URL; "
                f"for a local folder or archive run `eurekaclaw install-skills {source}`"))
        dest = Workspace(_settings().eurekaclaw_dir).skills_dir
        try:
            report = await run_in_threadpool(install_skills, source, dest, form.get("force") == "1")
        except EurekaError as exc:
            return await skills(request, report=f"error: {exc.user_message()}", code=400 if exc.exit_code == 2 else 409)
        return await skills(request, report=report.render())

    async def on_ui_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, UIError)
        return page(request, "error.html", code=exc.status, message=exc.message)

    async def on_eureka_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, EurekaError)
        status = 400 if exc.exit_code == 2 else 409
        return page(request, "error.html", code=status, message=exc.user_message())

    async def on_bug(request: Request, exc: Exception) -> Response:
        # a bug still ends in one readable line (the traceback goes to the server's log)
        import logging

        from eurekaclaw.redact import scrub

        logging.getLogger(__name__).error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return page(request, "error.html", code=500, message=scrub(f"internal error: {type(exc).__name__}: {exc}"))

    routes = [
        Route("/", sessions),
        Route("/launch", launch_form, methods=["GET"]),
        Route("/launch", launch, methods=["POST"]),
        Route("/skills", skills, methods=["GET"]),
        Route("/skills/install", skills_install, methods=["POST"]),
        Route("/sessions/{sid}", session_page),
        Route("/sessions/{sid}/live", session_live),
        Route("/sessions/{sid}/events", events),
        Route("/sessions/{sid}/paper", paper),
        Route("/sessions/{sid}/eval", evaluation),
        Route("/sessions/{sid}/evaluate", evaluate, methods=["POST"]),
        Route("/sessions/{sid}/review", review_page, methods=["GET"]),
        Route("/sessions/{sid}/review", review_post, methods=["POST"]),
        Route("/sessions/{sid}/pause", pause, methods=["POST"]),
        Route("/sessions/{sid}/resume", resume, methods=["POST"]),
        Route("/sessions/{sid}/gate", gate, methods=["POST"]),
        Route("/sessions/{sid}/files/{name}", session_file),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={UIError: on_ui_error, EurekaError: on_eureka_error,
                                                          Exception: on_bug})
    return Guard(app, token=token, hosts=hosts)


def _budget(value: Any) -> float | None:
    text = str(value or "").strip()
    if not text:
        return None
    try:
        budget = float(text)
    except ValueError:
        raise UIError(400, f"budget {text!r} is not a number of dollars") from None
    if not budget >= 0:
        raise UIError(400, "the budget cannot be negative")
    return budget


def _markdown(text: str) -> str:
    """The paper's Markdown as HTML; raw HTML in it is escaped, never passed through."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


async def _event_stream(request: Request, session: SessionDir, first: int) -> Any:
    """events.jsonl as server-sent events (id = line number), followed while the session runs.
    Only complete lines are sent, so a line being appended is never cut in half."""
    path = session.file(SessionDir.EVENTS)
    sent, offset, pending = 0, 0, b""
    yield "retry: 3000\n\n"
    while True:
        running = session.running_pid() is not None  # before reading: the last lines are never missed
        try:
            with path.open("rb") as fh:
                fh.seek(offset)
                chunk = fh.read()
        except FileNotFoundError:
            chunk = b""
        offset += len(chunk)
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            sent += 1
            if sent <= first or not raw.strip():
                continue
            try:
                json.loads(raw)
            except ValueError:
                continue  # a damaged line is skipped, as the store's reader does
            yield f"id: {sent}\ndata: {raw.decode('utf-8', 'replace')}\n\n"
        if not running:
            return  # the browser reconnects (Last-Event-ID) if the session is resumed later
        if await request.is_disconnected():
            return
        await asyncio.sleep(SSE_POLL_S)
