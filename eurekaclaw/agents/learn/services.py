"""One call for the orchestrator to wire memory and skills into a session.

    services = build_memory_services(settings.eurekaclaw_dir, session_id, domain,
                                     plugin.get_skills_dirs() if plugin else [])
    services["memories_block"] = memories_block_for(services["memory"], domain, statement)
    ctx.services.update(services)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from eurekaclaw.memory.embeddings import LazyEmbedder
from eurekaclaw.memory.manager import MemoryManager
from eurekaclaw.skills.injector import SkillInjector
from eurekaclaw.skills.registry import SkillRegistry

if TYPE_CHECKING:
    from eurekaclaw.agents.base import AgentContext
    from eurekaclaw.memory.embeddings import Embedder
    from eurekaclaw.memory.episodic import EpisodicMemory

INJECTED_MEMORIES = 4


def build_memory_services(
    workspace_root: Path,
    session_id: str,
    domain: str,
    plugin_skill_dirs: list[Path],
    *,
    embedder: Embedder | None = None,
    episodic: EpisodicMemory | None = None,
) -> dict[str, Any]:
    """{"memory": MemoryManager, "skill_registry": SkillRegistry, "skill_injector": SkillInjector}
    sharing one (lazily loaded) embedder; `domain` becomes the manager's `domain`."""
    root = Path(workspace_root)
    shared = embedder if embedder is not None else LazyEmbedder()
    memory = MemoryManager(root, session_id, shared, episodic=episodic, domain=domain)
    registry = SkillRegistry(root / "skills", domain_dirs=list(plugin_skill_dirs))
    injector = SkillInjector(registry, shared)
    return {"memory": memory, "skill_registry": registry, "skill_injector": injector}


def memories_block_for(manager: MemoryManager, domain: str, query: str) -> str:
    """`<memories>…</memories>` with the top-4 tier-4 insights of `domain` for `query`
    ("" when the domain has none)."""
    return manager.render_memories_block(manager.load_for_injection(domain, k=INJECTED_MEMORIES, query=query))


def services_from_context(ctx: AgentContext) -> dict[str, Any]:
    """The context's services, built from its workspace where the orchestrator did not."""
    wanted = ("memory", "skill_registry", "skill_injector")
    if all(ctx.services.get(k) is not None for k in wanted):
        return {k: ctx.services[k] for k in wanted}
    root = ctx.workspace.root if ctx.workspace is not None else ctx.settings.eurekaclaw_dir
    plugin_dirs = list(ctx.plugin.get_skills_dirs()) if ctx.plugin is not None else []
    built = build_memory_services(root, ctx.session_id, ctx.domain, plugin_dirs, episodic=ctx.episodic)
    return {k: ctx.services.get(k) or built[k] for k in wanted}
