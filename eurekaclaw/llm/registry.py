"""The LLM backend registry: the built-in backends, plus any a plugin registers through the
`eurekaclaw.llm_backends` entry-point group (see docs/llm-backends.md, "Writing a backend").

An entry point names a `BackendSpec`, or a callable returning one:

    [project.entry-points."eurekaclaw.llm_backends"]
    mybackend = "my_package.backend:SPEC"

`SPEC.build(settings, arg)` returns an object satisfying `LLMClient` (derive from
`eurekaclaw.llm.client.BaseLLMClient` to inherit the optional parts). Plugins are chosen by name
(`--llm mybackend[:arg]` or `LLM_BACKEND=mybackend`); automatic choice stays with the built-ins.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from eurekaclaw.config import BUILTIN_BACKENDS, LLM_BACKENDS_GROUP
from eurekaclaw.llm.types import LLMClient

log = logging.getLogger(__name__)

GROUP = LLM_BACKENDS_GROUP
BUILTIN = BUILTIN_BACKENDS


@dataclass(frozen=True)
class BackendSpec:
    name: str
    build: Callable[..., LLMClient]  # (settings, arg, replay_log=None) -> LLMClient
    description: str = ""
    needs_arg: bool = False  # `--llm name:<arg>` is required (like scripted:<file>)


_plugins: dict[str, BackendSpec] | None = None


def plugin_backends(reload: bool = False) -> dict[str, BackendSpec]:
    """Backends registered by installed packages, by name; a broken plugin is skipped with a
    warning, and none may replace a built-in."""
    global _plugins
    if _plugins is not None and not reload:
        return _plugins
    found: dict[str, BackendSpec] = {}
    for ep in entry_points(group=GROUP):
        try:
            obj: Any = ep.load()
            spec = obj if isinstance(obj, BackendSpec) else obj()
            if not isinstance(spec, BackendSpec):
                raise TypeError(f"{ep.value} is not a BackendSpec")
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the CLI
            log.warning("LLM backend plugin %s could not be loaded: %s", ep.name, exc)
            continue
        name = spec.name.replace("-", "_")
        if name in BUILTIN:
            log.warning("LLM backend plugin %s may not replace the built-in %r; skipped", ep.value, name)
            continue
        found[name] = spec
    _plugins = found
    return found


def register(spec: BackendSpec) -> None:
    """Register a backend in this process (tests, embedding applications)."""
    plugin_backends()[spec.name.replace("-", "_")] = spec


def backend_names() -> list[str]:
    return [*BUILTIN, *sorted(plugin_backends())]


def build_plugin(name: str, settings: Any, arg: str | None, replay_log: Path | None = None) -> LLMClient:
    spec = plugin_backends()[name]
    return spec.build(settings, arg)
