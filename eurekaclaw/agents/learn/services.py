"""One call for the orchestrator to wire memory and skills into a session.

services = build_memory_services(settings.eurekaclaw_dir, session_id, domain,
                                 plugin.get_skills_dirs() if plugin else [])
services.memories_block = session_memories_block(services.memory, domain, statement,
                                                 plugin=plugin,
                                                 total_budget=settings.memory_skill_token_budget)
ctx.services = services
watch_session_papers(ctx, statement)   # no statement: re-chosen from the papers' titles
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from eurekaclaw.agents.base import Services
from eurekaclaw.memory.embeddings import LazyEmbedder
from eurekaclaw.memory.manager import MemoryManager
from eurekaclaw.skills.injector import SkillInjector
from eurekaclaw.skills.prompt_budget import DEFAULT_BUDGET, memory_share, tokens
from eurekaclaw.skills.registry import SkillRegistry

if TYPE_CHECKING:
    from eurekaclaw.agents.base import AgentContext
    from eurekaclaw.domains import DomainPlugin
    from eurekaclaw.memory.embeddings import Embedder
    from eurekaclaw.memory.episodic import EpisodicMemory
    from eurekaclaw.types.artifacts import Paper

log = logging.getLogger(__name__)

INJECTED_MEMORIES = 4
MAX_QUERY_TITLES = 8


def build_memory_services(
    workspace_root: Path,
    session_id: str,
    domain: str,
    plugin_skill_dirs: list[Path],
    *,
    embedder: Embedder | None = None,
    episodic: EpisodicMemory | None = None,
) -> Services:
    """The memory manager, skill registry and skill injector, sharing one (lazily loaded)
    embedder; `domain` becomes the manager's `domain`."""
    memory, registry, injector = _memory_and_skills(
        workspace_root,
        session_id,
        domain,
        plugin_skill_dirs,
        embedder=embedder,
        episodic=episodic,
    )
    return Services(memory=memory, skill_registry=registry, skill_injector=injector)


def _memory_and_skills(
    workspace_root: Path,
    session_id: str,
    domain: str,
    plugin_skill_dirs: list[Path],
    *,
    embedder: Embedder | None = None,
    episodic: EpisodicMemory | None = None,
) -> tuple[MemoryManager, SkillRegistry, SkillInjector]:
    root = Path(workspace_root)
    shared = embedder if embedder is not None else LazyEmbedder()
    memory = MemoryManager(root, session_id, shared, episodic=episodic, domain=domain)
    registry = SkillRegistry(root / "skills", domain_dirs=list(plugin_skill_dirs))
    return memory, registry, SkillInjector(registry, shared)


def memories_block_for(manager: MemoryManager, domain: str, query: str, token_budget: int | None = None) -> str:
    """`<memories>…</memories>` with the top-4 tier-4 insights of `domain` for `query`
    ("" when the domain has none), cut to `token_budget` tokens by dropping the least
    relevant insights (the memories' share of MEMORY_SKILL_TOKEN_BUDGET)."""
    insights = manager.load_for_injection(domain, k=INJECTED_MEMORIES, query=query)
    block = manager.render_memories_block(insights)
    while token_budget is not None and insights and tokens(block) > token_budget:
        insights = insights[:-1]
        block = manager.render_memories_block(insights)
    return block


def session_memory_query(
    statement: str,
    domain: str,
    *,
    titles: list[str] | None = None,
    plugin: DomainPlugin | None = None,
) -> str:
    """What a session's memories are chosen by: its statement; without one (`from-papers`,
    a broad `explore`) the titles of its papers and its domain's description, so an empty
    statement never means "whatever was saved last"."""
    if statement.strip():
        return statement.strip()
    parts = [t for t in (titles or []) if t.strip()][:MAX_QUERY_TITLES]
    if plugin is not None:
        parts += [plugin.display_name, plugin.description, " ".join(plugin.keywords)]
    parts.append(domain.replace("_", " "))
    return "\n".join(p for p in parts if p and p.strip())


def session_memories_block(
    manager: MemoryManager,
    domain: str,
    statement: str,
    *,
    plugin: DomainPlugin | None = None,
    total_budget: int = DEFAULT_BUDGET,
    titles: list[str] | None = None,
) -> str:
    """The session's `<memories>` block: chosen by `session_memory_query`, within the memories'
    share of the prompt budget shared with skills (skills/prompt_budget.py)."""
    query = session_memory_query(statement, domain, titles=titles, plugin=plugin)
    return memories_block_for(manager, domain, query, memory_share(total_budget))


def session_titles(ctx: AgentContext) -> list[str]:
    """Titles of the session's papers: the requested ones first, then the other relevant ones."""
    bib = ctx.bus.get_bibliography()
    brief = ctx.bus.get_research_brief()
    if bib is None:
        return []
    requested = {i.lower() for i in (brief.requested_ids if brief else [])}

    def is_requested(p: Paper) -> bool:
        ids = {p.paper_id, p.arxiv_id or "", p.doi or "", f"arxiv:{p.arxiv_id}", f"doi:{p.doi}"}
        return bool(requested & {i.lower() for i in ids if i})

    papers = [p for p in bib.papers if p.relevant]
    papers.sort(key=lambda p: not is_requested(p))  # stable: requested first, order kept
    return [p.title for p in papers]


def watch_session_papers(ctx: AgentContext, statement: str) -> None:
    """For a session without a statement: choose its memories again from its papers' titles
    as soon as the survey has them (and at once on resume, when they are already there)."""
    memory = ctx.services.memory
    if statement.strip() or memory is None:
        return

    def refresh(_: object = None) -> None:
        titles = session_titles(ctx)
        if not titles:
            return
        try:
            block = session_memories_block(
                memory,
                ctx.domain,
                "",
                plugin=ctx.plugin,
                titles=titles,
                total_budget=ctx.settings.memory_skill_token_budget,
            )
        except Exception as exc:  # memory helps; it must not stop the survey
            log.warning("memories for the session's papers could not be chosen: %s", exc)
            return
        ctx.services.memories_block = block

    ctx.bus.subscribe("bibliography", refresh)
    refresh()


def complete_memory_services(ctx: AgentContext) -> tuple[MemoryManager, SkillRegistry]:
    """The context's memory manager and skill registry; those (and the injector) the
    orchestrator did not attach are built from the workspace and attached to `ctx`."""
    services = ctx.services
    memory, registry, injector = services.memory, services.skill_registry, services.skill_injector
    if memory is None or registry is None or injector is None:
        root = ctx.workspace.root if ctx.workspace is not None else ctx.settings.eurekaclaw_dir
        plugin_dirs = list(ctx.plugin.get_skills_dirs()) if ctx.plugin is not None else []
        built = _memory_and_skills(root, ctx.session_id, ctx.domain, plugin_dirs, episodic=ctx.episodic)
        memory = built[0] if memory is None else memory
        registry = built[1] if registry is None else registry
        injector = built[2] if injector is None else injector
        services.memory, services.skill_registry, services.skill_injector = memory, registry, injector
    return memory, registry
