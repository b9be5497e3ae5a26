"""CheckLimits: what one round of checks may spend, read once from Settings.

Checkers receive this typed value instead of the whole Settings object, so a checker cannot
depend on a setting it does not declare, and the defaults are Settings' own (never a copy of
its numbers kept here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eurekaclaw.config import Settings

if TYPE_CHECKING:
    from collections.abc import Callable


def _default(name: str) -> Callable[[], Any]:
    value = Settings.model_fields[name].default
    return lambda: value


@dataclass(frozen=True)
class CheckLimits:
    """Time budgets and locations the checkers use (docs/verification.md, "Settings")."""

    falsifier_budget_s: float = field(default_factory=_default("falsifier_budget_s"))
    smt_timeout_s: float = field(default_factory=_default("smt_timeout_s"))
    smt_second_opinion_s: float = field(default_factory=_default("smt_second_opinion_s"))
    formal_timeout_s: float = field(default_factory=_default("formal_timeout_s"))
    lean_project_dir: Path | None = field(default_factory=_default("lean_project_dir"))

    @classmethod
    def from_settings(cls, settings: Settings | None) -> CheckLimits:
        """The limits of `settings` (None: Settings' defaults)."""
        if settings is None:
            return cls()
        project = settings.lean_project_dir
        return cls(
            falsifier_budget_s=float(settings.falsifier_budget_s),
            smt_timeout_s=float(settings.smt_timeout_s),
            smt_second_opinion_s=float(settings.smt_second_opinion_s),
            formal_timeout_s=float(settings.formal_timeout_s),
            lean_project_dir=Path(project).expanduser() if project else None,
        )
