"""Prompt templates (prompts/*.j2) and their renderer; LaTeX/Markdown paper templates live in
paper/ and have their own environment in agents/writer."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES_DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def template_env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_prompt(name: str, **context: Any) -> str:
    """Render templates/prompts/<name>.j2."""
    return template_env().get_template(f"prompts/{name}.j2").render(**context).strip()
