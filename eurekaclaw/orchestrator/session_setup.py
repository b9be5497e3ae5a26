"""Assemble everything a session's agents share: LLM client with ledger and log, tools,
domain plugin, memory and skill services."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

from eurekaclaw.agents.base import AgentContext, Services
from eurekaclaw.agents.learn.services import (
    build_memory_services,
    session_memories_block,
    watch_session_papers,
)
from eurekaclaw.config import Settings
from eurekaclaw.domains import DomainPlugin
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.prices import settings_price
from eurekaclaw.llm.session_client import SessionLLM, session_llm
from eurekaclaw.llm.types import LLMClient
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.tools.base import ToolRegistry

log = logging.getLogger(__name__)


def build_tools(settings: Settings, workspace: Workspace, plugin: DomainPlugin | None) -> ToolRegistry:
    """Tools every agent may use: the domain plugin's, `symbolic` and, with BRAVE_API_KEY,
    `web_search` (which role is offered which: tools/roles.py). (The survey registers its
    literature tools on its own registry, since they share that stage's paper pool.)"""
    from eurekaclaw.tools.symbolic import register_symbolic_tool
    from eurekaclaw.tools.web_search import register_web_search_tool

    registry = ToolRegistry()
    register_symbolic_tool(registry, settings)
    register_web_search_tool(registry, settings)
    if plugin is not None:
        plugin.register_tools(registry)
    return registry


def build_services(
    workspace: Workspace,
    session_id: str,
    domain: str,
    plugin: DomainPlugin | None,
    statement: str,
    episodic: EpisodicMemory,
    memory_budget: int = 2000,
) -> Services:
    skill_dirs = list(plugin.get_skills_dirs()) if plugin is not None else []
    services = build_memory_services(workspace.root, session_id, domain, skill_dirs, episodic=episodic)
    if services.memory is not None:
        services.memories_block = session_memories_block(
            services.memory,
            domain,
            statement,
            plugin=plugin,
            total_budget=memory_budget,
        )
    return services


def build_context(
    *,
    settings: Settings,
    workspace: Workspace,
    session: SessionDir,
    bus: KnowledgeBus,
    backend: LLMClient,
    budget_usd: float | None,
    domain: str,
    plugin: DomainPlugin | None,
    statement: str,
    events: Callable[..., None],
    on_usage: Callable[[UsageLedger], None] | None = None,
    review_backend: LLMClient | None = None,
) -> AgentContext:
    ledger = UsageLedger(
        session.file(SessionDir.USAGE),
        budget_usd=budget_usd,
        budget_tokens=settings.eurekaclaw_budget_tokens,
        price_override=settings_price(settings),
    )

    def client(which: LLMClient) -> SessionLLM:
        # One ledger and one log for both models: the budget covers the reviewer too.
        return session_llm(
            which,
            ledger,
            session.file(SessionDir.LLM_LOG),
            settings,
            on_usage=on_usage,
            # "prover: rate limited, retrying in 12 s" in the live display and events.jsonl
            on_retry=lambda notice: events("llm", message=notice),
        )

    llm = client(backend)
    episodic = EpisodicMemory(session.session_id)
    ctx = AgentContext(
        session_id=session.session_id,
        settings=settings,
        bus=bus,
        llm=llm,
        tools=build_tools(settings, workspace, plugin),
        episodic=episodic,
        workspace=workspace,
        session=session,
        domain=domain,
        plugin=plugin,
        events=events,
        services=build_services(
            workspace, session.session_id, domain, plugin, statement, episodic, settings.memory_skill_token_budget
        ),
        review_llm=client(review_backend) if review_backend is not None else None,
    )
    # Without a statement (from-papers), memories are chosen again from the papers' titles.
    watch_session_papers(ctx, statement)
    return ctx


def copy_outputs(session: SessionDir, output_dir: Path) -> list[str]:
    """Copy the session's user-facing artefacts to the --output directory."""
    output_dir.mkdir(parents=True, exist_ok=True)
    copied = []
    wanted_suffixes = {".tex", ".md", ".bib", ".pdf", ".csv", ".json"}
    skip = {SessionDir.PID, SessionDir.PAUSE_REQUEST, SessionDir.CHECKPOINT}
    for path in sorted(session.path.iterdir()):
        if (
            path.is_file()
            and path.suffix in wanted_suffixes
            and path.name not in skip
            and not path.name.startswith(".")
        ):
            shutil.copy2(path, output_dir / path.name)
            copied.append(path.name)
    return copied
