"""Which of the session-wide tools each role is offered (the domain plugin's own tools are
offered to the Prover separately, agents/theory/skills.py). Only tools that are registered
count: the web search exists only when its key is configured."""

from __future__ import annotations

from eurekaclaw.tools.base import ToolRegistry

ROLE_TOOLS: dict[str, tuple[str, ...]] = {
    "prover": ("symbolic", "web_search"),
    "refiner": ("symbolic",),
    "verifier": ("symbolic",),
    "survey": ("web_search",),
}


def role_tool_names(registry: ToolRegistry, role: str) -> list[str]:
    return [name for name in ROLE_TOOLS.get(role, ()) if registry.get(name) is not None]
