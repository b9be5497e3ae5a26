"""Checks of what the user typed, before anything is created or any request is made."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from eurekaclaw.errors import BadInputError

MAX_STATEMENT_CHARS = 20_000


def clean_statement(statement: str, what: str = "statement") -> str:
    if statement is None or not statement.strip():
        raise BadInputError(f"the {what} is empty")
    if "\x00" in statement:
        raise BadInputError(f"the {what} contains NUL bytes")
    if len(statement) > MAX_STATEMENT_CHARS:
        raise BadInputError(
            f"the {what} is {len(statement):,} characters long; the limit is {MAX_STATEMENT_CHARS:,}"
        )
    return statement.strip()


def check_output_dir(output: str | None) -> str:
    """The output directory template ('{session_id}' is filled in later); it must be writable."""
    template = output or os.path.join("results", "{session_id}")
    probe_dir = Path(template.replace("{session_id}", "")).expanduser()
    # the nearest existing ancestor must let us create the directory and write in it
    try:
        probe_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=probe_dir, prefix=".eurekaclaw-probe-"):
            pass
    except OSError as exc:
        raise BadInputError(f"output directory {probe_dir} cannot be written: {exc.strerror or exc}") from None
    return str(Path(template).expanduser())


def check_paper_ids(ids: list[str]) -> list[str]:
    if not ids:
        raise BadInputError("give at least one arXiv id, e.g. `eurekaclaw from-papers 1204.5721`")
    from eurekaclaw.tools.literature.ids import validate_paper_ids

    return validate_paper_ids(ids)
