"""`eurekaclaw skills`: every skill the next session can use, with its statistics."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table

from eurekaclaw.config import Settings
from eurekaclaw.domains import discover_plugins
from eurekaclaw.store.session import Workspace


def skills_table(settings: Settings) -> tuple[Table, list[dict[str, Any]], list[tuple[str, str]]]:
    from eurekaclaw.skills.registry import SkillRegistry

    domain_dirs = [d for plugin in discover_plugins().values() for d in plugin.get_skills_dirs()]
    registry = SkillRegistry(Workspace(settings.eurekaclaw_dir).skills_dir, domain_dirs)
    rows = []
    skills = sorted(registry.list(), key=lambda s: s.meta.name)
    table = Table(show_header=True, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    # a name is never split or cut (it is what the user types); narrow columns give way first
    table.add_column("name", no_wrap=True, min_width=max((len(s.meta.name) for s in skills), default=4))
    for col in ("origin", "source", "uses", "rate"):
        table.add_column(col, no_wrap=True, overflow="ellipsis")
    table.add_column("description", ratio=1, min_width=12)
    for skill in skills:
        rate = skill.meta.success_rate
        rows.append(
            {
                "name": skill.meta.name,
                "origin": skill.origin,
                "source": skill.meta.source,
                "usage_count": skill.meta.usage_count,
                "success_rate": rate,
                "description": skill.meta.description,
            }
        )
        table.add_row(
            skill.meta.name,
            skill.origin,
            skill.meta.source,
            str(skill.meta.usage_count),
            "-" if rate is None else f"{rate:.2f}",
            skill.meta.description,
        )
    return table, rows, list(registry.problems)
