"""Helpers for the skill tests: write SKILL.md folders."""

from __future__ import annotations

from pathlib import Path


def write_skill(
    root: Path,
    name: str,
    *,
    body: str = "Do the thing carefully.",
    tags=("t",),
    roles=("prover",),
    description: str = "",
    source: str = "manual",
    usage_count: int = 0,
    success_rate: float | None = None,
    folder: str | None = None,
) -> Path:
    folder_path = root / (folder or name)
    folder_path.mkdir(parents=True, exist_ok=True)
    rate = "null" if success_rate is None else success_rate
    text = (
        "---\n"
        f"name: {name}\n"
        f"tags: [{', '.join(tags)}]\n"
        f"agent_roles: [{', '.join(roles)}]\n"
        f"description: {description or name + ' skill'}\n"
        f"source: {source}\n"
        f"usage_count: {usage_count}\n"
        f"success_rate: {rate}\n"
        "---\n\n"
        f"{body}\n"
    )
    (folder_path / "SKILL.md").write_text(text, encoding="utf-8")
    return folder_path
