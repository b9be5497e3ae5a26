"""`eurekaclaw skills`: every skill the next session can use, with its statistics."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from eurekaclaw.config import Settings
from eurekaclaw.domains import discover_plugins
from eurekaclaw.store.session import Workspace


def skills_table(settings: Settings) -> tuple[Table, list[dict[str, Any]], list[tuple[str, str]]]:
    from eurekaclaw.skills.registry import SkillRegistry

    domain_dirs = [d for plugin in discover_plugins().values() for d in plugin.get_skills_dirs()]
    registry = SkillRegistry(Workspace(settings.eurekaclaw_dir).skills_dir, domain_dirs)
    rows = []
    table = Table(show_header=True)
    for col in ("name", "origin", "source", "uses", "success rate", "description"):
        table.add_column(col, overflow="fold")
    for skill in sorted(registry.list(), key=lambda s: s.meta.name):
        rate = skill.meta.success_rate
        rows.append({
            "name": skill.meta.name,
            "origin": skill.origin,
            "source": skill.meta.source,
            "usage_count": skill.meta.usage_count,
            "success_rate": rate,
            "description": skill.meta.description,
        })
        table.add_row(
            skill.meta.name,
            skill.origin,
            skill.meta.source,
            str(skill.meta.usage_count),
            "-" if rate is None else f"{rate:.2f}",
            skill.meta.description,
        )
    return table, rows, list(registry.problems)
