"""The paper's Q&A and revision page (the work itself is in eurekaclaw.ui.review)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from eurekaclaw.ui import data
from eurekaclaw.ui.web import Pages, UIError, redirect, session_of, workspace


def routes(ui: Pages) -> list[BaseRoute]:
    async def review_page(request: Request) -> HTMLResponse:
        session = session_of(request)
        from eurekaclaw.ui.review import review_state

        view = await run_in_threadpool(data.session_view, workspace(), session)
        state = await run_in_threadpool(review_state, session.session_id)
        return ui.page(request, "review.html", s=view, r=state)

    async def review_post(request: Request) -> Response:
        session = session_of(request)
        form = await ui.check_csrf(request)
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
        return redirect(f"/sessions/{session.session_id}/review")

    return [
        Route("/sessions/{sid}/review", review_page, methods=["GET"]),
        Route("/sessions/{sid}/review", review_post, methods=["POST"]),
    ]
