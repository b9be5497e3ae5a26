"""The paper (its Markdown rendered, the PDF beside it) and the evaluation report."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from eurekaclaw.ui import data
from eurekaclaw.ui.web import Pages, redirect, session_of, settings, workspace


def routes(ui: Pages) -> list[BaseRoute]:
    async def paper(request: Request) -> HTMLResponse:
        session = session_of(request)
        view = await run_in_threadpool(data.session_view, workspace(), session)
        md = data.session_file(session, "paper.md")
        html = markdown(md.read_text(encoding="utf-8", errors="replace")) if md else None
        pdf = "paper.pdf" if data.session_file(session, "paper.pdf") else None
        return ui.page(request, "paper.html", s=view, paper_html=html, pdf=pdf)

    async def evaluation(request: Request) -> HTMLResponse:
        view = await run_in_threadpool(data.session_view, workspace(), session_of(request))
        report = view["eval"] if isinstance(view["eval"], dict) else None
        return ui.page(request, "eval.html", s=view, report=report)

    async def evaluate(request: Request) -> Response:
        session = session_of(request)
        await ui.check_csrf(request)
        from eurekaclaw.orchestrator.evaluation import evaluate as run_eval

        await run_in_threadpool(run_eval, settings(), session.session_id, None)
        return redirect(f"/sessions/{session.session_id}/eval")

    return [
        Route("/sessions/{sid}/paper", paper),
        Route("/sessions/{sid}/eval", evaluation),
        Route("/sessions/{sid}/evaluate", evaluate, methods=["POST"]),
    ]


def markdown(text: str) -> str:
    """The paper's Markdown as HTML; raw HTML in it is escaped, never passed through."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
