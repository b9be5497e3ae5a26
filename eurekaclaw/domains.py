"""DomainPlugin ABC and plugin discovery through the `eurekaclaw.domains` entry-point group.

Routing: an explicit --domain wins; otherwise the first plugin with a keyword that matches the
statement on word boundaries (case-insensitive) is used; otherwise the domain is "general".
"""

from __future__ import annotations

import logging
import re
import sys
from abc import ABC, abstractmethod
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eurekaclaw.errors import BadInputError

if TYPE_CHECKING:
    from eurekaclaw.tools.base import ToolRegistry
    from eurekaclaw.types.artifacts import Paper

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "eurekaclaw.domains"
GENERAL = "general"


class DomainPlugin(ABC):
    name: str = ""
    display_name: str = ""
    keywords: list[str] = []
    description: str = ""

    @abstractmethod
    def register_tools(self, registry: ToolRegistry) -> None: ...

    @abstractmethod
    def get_workflow_hint(self) -> str: ...

    @abstractmethod
    def get_skills_dirs(self) -> list[Path]: ...

    @abstractmethod
    def get_benchmark_problems(self, level: str) -> list[dict[str, Any]]: ...

    def matches(self, text: str) -> bool:
        """Word-boundary keyword match; plugins may override for stricter rules."""
        return any(re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", text, re.IGNORECASE) for k in self.keywords)

    def experiment_stage_available(self) -> bool:
        """Whether this plugin can run simulations for the Experiment stage."""
        return False

    def experiment_backend(self) -> Any | None:
        """The plugin's simulator backend for the Experiment stage (see docs/mab.md), or None."""
        return None

    def get_references(self) -> list[Paper]:
        """Classic results this domain builds on, each checked once when it was added: the
        `references.json` beside the plugin's module (eurekaclaw/domain_refs.py), else none.
        The writer cites them when the survey found nothing."""
        from eurekaclaw.domain_refs import FILE_NAME, load_references

        module = sys.modules.get(type(self).__module__)
        where = getattr(module, "__file__", None)
        return load_references(Path(where).with_name(FILE_NAME), self.name) if where else []


def discover_plugins() -> dict[str, DomainPlugin]:
    plugins: dict[str, DomainPlugin] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            cls = ep.load()
            plugin = cls()
        except Exception as exc:  # a broken plugin must not take the CLI down
            log.warning("domain plugin %s could not be loaded: %s", ep.name, exc)
            continue
        plugins[plugin.name or ep.name] = plugin
    return plugins


def route_domain(statement: str, explicit: str | None, plugins: dict[str, DomainPlugin]) -> str:
    if explicit:
        name = explicit.strip().lower()
        if name != GENERAL and name not in plugins:
            known = ", ".join(sorted(plugins) + [GENERAL])
            raise BadInputError(f"unknown domain {explicit!r}: known domains are {known}")
        return name
    for name, plugin in plugins.items():
        if plugin.matches(statement):
            return name
    return GENERAL
