"""The sessions list, a session's page and the files it serves."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from eurekaclaw.ui import data
from eurekaclaw.ui.web import Pages, UIError, session_of, workspace

# session statuses, then theorem statuses as theory_view names them
STATUS_FILTERS = (
    "running",
    "completed",
    "partial",
    "paused",
    "interrupted",
    "failed",
    "damaged",
    "proved",
    "self_reviewed",
    "narrower_claim",
    "contradicted",
    "refuted",
)


def routes(ui: Pages) -> list[BaseRoute]:
    async def sessions(request: Request) -> HTMLResponse:
        query = request.query_params.get("q", "")[:200]
        status = request.query_params.get("status", "")
        status = status if status in STATUS_FILTERS else ""
        sort = request.query_params.get("sort", "date")
        sort = sort if sort in data.SORTS else "date"
        order = request.query_params.get("order", "")
        order = order if order in ("asc", "desc") else data.SORTS[sort]
        rows = await run_in_threadpool(data.session_rows, workspace(), query, status, sort, order)
        return ui.page(
            request, "sessions.html", rows=rows, q=query, status=status, filters=STATUS_FILTERS, sort=sort, order=order
        )

    async def session_page(request: Request) -> HTMLResponse:
        view = await run_in_threadpool(data.session_view, workspace(), session_of(request))
        return ui.page(request, "session.html", s=view)

    async def session_file(request: Request) -> Response:
        path = data.session_file(session_of(request), request.path_params["name"])
        if path is None:
            raise UIError(404, "no such file in this session")
        return FileResponse(
            path,
            media_type=data.SERVED_SUFFIXES[path.suffix.lower()],
            content_disposition_type="inline",
            filename=path.name,
        )

    return [
        Route("/", sessions),
        Route("/sessions/{sid}", session_page),
        Route("/sessions/{sid}/files/{name}", session_file),
    ]
