"""What a running session's page follows: the live partial it reloads and the event log as
server-sent events."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, StreamingResponse
from starlette.routing import BaseRoute, Route

from eurekaclaw.store.session import SessionDir
from eurekaclaw.ui import data
from eurekaclaw.ui.web import Pages, session_of, workspace

SSE_POLL_S = 0.5


def routes(ui: Pages) -> list[BaseRoute]:
    async def session_live(request: Request) -> HTMLResponse:
        view = await run_in_threadpool(data.session_view, workspace(), session_of(request))
        return ui.page(request, "_live.html", s=view)

    async def events(request: Request) -> StreamingResponse:
        session = session_of(request)
        try:
            first = int(request.headers.get("last-event-id") or request.query_params.get("from") or 0)
        except ValueError:
            first = 0
        return StreamingResponse(
            event_stream(request, session, first), media_type="text/event-stream", headers={"x-accel-buffering": "no"}
        )

    return [
        Route("/sessions/{sid}/live", session_live),
        Route("/sessions/{sid}/events", events),
    ]


def _complete_lines(raw_lines: list[bytes], sent: int, first: int) -> tuple[list[str], int]:
    """SSE messages for the complete lines after line `first` (id = line number); a blank or
    damaged line is skipped, as the store's reader does, but still counted."""
    out = []
    for raw in raw_lines:
        sent += 1
        if sent <= first or not raw.strip():
            continue
        try:
            json.loads(raw)
        except ValueError:
            continue
        out.append(f"id: {sent}\ndata: {raw.decode('utf-8', 'replace')}\n\n")
    return out, sent


def _read_from(session: SessionDir, offset: int) -> bytes:
    path = session.file(SessionDir.EVENTS)
    try:
        if path.is_symlink():  # never followed out of the session folder
            return b""
        with path.open("rb") as fh:
            fh.seek(offset)
            return fh.read()
    except OSError:  # missing, or not a readable file: no events to show
        return b""


async def event_stream(request: Request, session: SessionDir, first: int) -> AsyncIterator[str]:
    """events.jsonl as server-sent events, followed while the session runs. Only complete
    lines are sent, so a line being appended is never cut in half."""
    sent, offset, pending = 0, 0, b""
    yield "retry: 3000\n\n"
    while True:
        running = session.running_pid() is not None  # before reading: the last lines are never missed
        chunk = _read_from(session, offset)
        offset += len(chunk)
        pending += chunk
        *lines, pending = pending.split(b"\n")
        messages, sent = _complete_lines(lines, sent, first)
        for message in messages:
            yield message
        if not running:
            return  # the browser reconnects (Last-Event-ID) if the session is resumed later
        if await request.is_disconnected():
            return
        await asyncio.sleep(SSE_POLL_S)
