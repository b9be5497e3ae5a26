"""Starting and steering runs: the launch form, pause, resume and the human gate's answer.
Each is the same request the CLI would make, through eurekaclaw.ui.runs."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from eurekaclaw.errors import EurekaError
from eurekaclaw.ui.web import Pages, UIError, budget, redirect, session_of, settings

MODES = ("prove", "from-papers", "explore")
GATE_MODES = (None, "none", "auto", "human")


def routes(ui: Pages) -> list[BaseRoute]:
    async def launch_form(request: Request) -> HTMLResponse:
        return ui.page(request, "launch.html", domains=_domains(), form={}, error=None)

    async def launch(request: Request) -> Response:
        form = await ui.check_csrf(request)
        from eurekaclaw.ui.runs import launch_run

        domains = _domains()
        try:
            spec = launch_spec(form, domains)
            # the run uses the backend the user configured, as the CLI would (no override here)
            sid = await run_in_threadpool(launch_run, settings(), spec)
        except (UIError, EurekaError) as exc:
            status, message = _refusal(exc)
            return ui.page(request, "launch.html", code=status, domains=domains, form=form, error=message)
        return redirect(f"/sessions/{sid}")

    async def pause(request: Request) -> Response:
        session = session_of(request)
        await ui.check_csrf(request)
        if session.running_pid() is None:
            raise UIError(409, f"session {session.session_id} is not running")
        session.request_pause()  # the same request file `eurekaclaw pause` writes
        return redirect(f"/sessions/{session.session_id}")

    async def resume(request: Request) -> Response:
        session = session_of(request)
        form = await ui.check_csrf(request)
        from eurekaclaw.ui.runs import resume_run

        sid = await run_in_threadpool(resume_run, settings(), session, budget(form.get("budget_usd")))
        return redirect(f"/sessions/{sid}")

    async def gate(request: Request) -> Response:
        session = session_of(request)
        form = await ui.check_csrf(request)
        from eurekaclaw.ui.runs import answer_gate

        approve = form.get("answer") == "approve"
        if not answer_gate(session, approve, str(form.get("feedback") or "")):
            raise UIError(409, "this session is not waiting at a gate")
        return redirect(f"/sessions/{session.session_id}")

    return [
        Route("/launch", launch_form, methods=["GET"]),
        Route("/launch", launch, methods=["POST"]),
        Route("/sessions/{sid}/pause", pause, methods=["POST"]),
        Route("/sessions/{sid}/resume", resume, methods=["POST"]),
        Route("/sessions/{sid}/gate", gate, methods=["POST"]),
    ]


def _domains() -> list[str]:
    from eurekaclaw.domains import discover_plugins

    return sorted(discover_plugins())


def _refusal(exc: UIError | EurekaError) -> tuple[int, str]:
    if isinstance(exc, UIError):
        return exc.status, exc.message
    return (400 if exc.exit_code == 2 else 409), exc.user_message()


def launch_spec(form: dict[str, Any], domains: list[str]) -> Any:
    """The launch form as an InputSpec, checked as the CLI checks its arguments: a vague
    statement or a wordless area is refused before any session or model call."""
    from eurekaclaw.orchestrator.inputs import check_area, check_conjecture, check_paper_ids
    from eurekaclaw.types.tasks import InputSpec

    mode = str(form.get("mode") or "")
    if mode not in MODES:
        raise UIError(400, "choose prove, from-papers or explore")
    gate_mode = str(form.get("gate") or "") or None
    if gate_mode not in GATE_MODES:
        raise UIError(400, "gate must be none, auto or human")
    domain = str(form.get("domain") or "") or None
    if domain is not None and domain not in domains:
        raise UIError(400, f"unknown domain {domain!r}")
    fields: dict[str, Any] = {
        "mode": mode,
        "domain": domain,
        "gate_mode": gate_mode,
        "budget_usd": budget(form.get("budget_usd")),
    }
    if mode == "from-papers":
        fields["paper_ids"] = check_paper_ids(str(form.get("paper_ids") or "").split())
    else:
        check = check_area if mode == "explore" else check_conjecture
        fields["statement"] = check(str(form.get("statement") or ""))
    return InputSpec(**fields)
