"""The skill bank: the table `eurekaclaw skills` prints, and installing skills."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Route

from eurekaclaw.errors import EurekaError
from eurekaclaw.store.session import Workspace
from eurekaclaw.ui.web import Pages, settings


def routes(ui: Pages) -> list[BaseRoute]:
    async def skills(request: Request, report: str = "", code: int = 200) -> HTMLResponse:
        from eurekaclaw.orchestrator.skills_view import skills_table

        _table, rows, problems = await run_in_threadpool(skills_table, settings())
        return ui.page(request, "skills.html", code=code, rows=rows, problems=problems, report=report)

    async def skills_install(request: Request) -> HTMLResponse:
        form = await ui.check_csrf(request)
        from eurekaclaw.skills.install import install_skills

        source = str(form.get("source") or "").strip() or None
        if source is not None and not source.startswith("https://"):
            # the app reads nothing outside EUREKACLAW_DIR: local folders and archives (and
            # file:// or ssh remotes) are installed from the terminal
            return await skills(
                request,
                code=400,
                report=(
                    "error: from the browser, install the built-in skills or an https:// git URL; "
                    f"for a local folder or archive run `eurekaclaw install-skills {source}`"
                ),
            )
        config = settings()
        dest = Workspace(config.eurekaclaw_dir).skills_dir
        force = form.get("force") == "1"
        try:
            # offline mode holds here as in every other network use: nothing is cloned
            report = await run_in_threadpool(
                lambda: install_skills(source, dest, force, offline=bool(config.eurekaclaw_offline))
            )
        except EurekaError as exc:
            return await skills(request, report=f"error: {exc.user_message()}", code=400 if exc.exit_code == 2 else 409)
        return await skills(request, report=report.render())

    return [
        Route("/skills", skills, methods=["GET"]),
        Route("/skills/install", skills_install, methods=["POST"]),
    ]
