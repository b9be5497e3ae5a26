"""Checks that need a request, made before a session exists.

`from-papers` cannot do anything without its papers. Fetching them first means an unreachable
network is one line with exit 3 (and its cause) instead of a session that ends "partial" with
the cause buried in research_brief.json. What is fetched lands in the HTTP cache, so the survey's
own fetch a moment later costs nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from eurekaclaw.errors import BadInputError, MissingConfigError


async def _fetch(settings: Any, ids: list[str]) -> tuple[Any, Any]:
    from eurekaclaw.tools.literature.service import LiteratureService

    service = LiteratureService.from_settings(settings)
    try:
        return await service.fetch_ids(ids), service
    finally:
        await service.aclose()


def check_papers_reachable(settings: Any, ids: list[str]) -> None:
    """Return when at least one requested paper can be had (fetched or cached); else raise:
    exit 3 when no source could be asked (offline, network down), exit 2 when the sources
    answered that none of the papers exists."""
    outcome, service = asyncio.run(_fetch(settings, ids))
    if outcome.found:
        return
    if outcome.unreachable:
        if settings.eurekaclaw_offline:
            raise MissingConfigError(
                f"EUREKACLAW_OFFLINE is set and {', '.join(outcome.unreachable)} is not in the cache",
                hint="unset EUREKACLAW_OFFLINE to fetch it",
            )
        causes = "; ".join(service.unavailable_sources()) or "no source answered"
        raise MissingConfigError(
            f"cannot fetch {', '.join(outcome.unreachable)}: no literature source is reachable ({causes})",
            hint="check the network with `eurekaclaw doctor --online`; nothing was created",
        )
    raise BadInputError(
        f"no source knows {', '.join(outcome.missing)}", hint="check the ids (arXiv 1204.5721, DOI 10.1000/xyz)"
    )
