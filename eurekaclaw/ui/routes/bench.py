"""The bench results: the bench folders under $EUREKACLAW_DIR/bench and one bench's rates with
their Wilson intervals and the paired comparison, computed by the bench's own report code."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Route

from eurekaclaw.ui import bench_data
from eurekaclaw.ui.web import Pages, UIError, settings


def routes(ui: Pages) -> list[BaseRoute]:
    async def benches(request: Request) -> HTMLResponse:
        root = bench_data.bench_root(settings().eurekaclaw_dir)
        rows = await run_in_threadpool(bench_data.bench_rows, root)
        return ui.page(request, "bench_list.html", rows=rows)

    async def bench_page(request: Request) -> HTMLResponse:
        root = bench_data.bench_root(settings().eurekaclaw_dir)
        path = bench_data.find_bench(root, request.path_params["bench"])
        if path is None:
            raise UIError(404, "no such bench")
        view = await run_in_threadpool(bench_data.bench_view, path)
        return ui.page(request, "bench.html", b=view)

    return [
        Route("/bench", benches, methods=["GET"]),
        Route("/bench/{bench}", bench_page, methods=["GET"]),
    ]
