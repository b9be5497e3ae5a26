"""Checks of what the user typed, before anything is created or any request is made."""

from __future__ import annotations

import os
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
    """The output directory template ('{session_id}' is filled in later). It must be creatable
    and writable; nothing is created here, so a rejected command leaves no trace."""
    template = output or os.path.join("results", "{session_id}")
    target = Path(template.replace("{session_id}", "")).expanduser().absolute()
    probe = target
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise BadInputError(f"output directory {target} cannot be written: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise BadInputError(f"output directory {target} cannot be written: no write permission on {probe}")
    return str(Path(template).expanduser())


def check_paper_ids(ids: list[str]) -> list[str]:
    if not ids:
        raise BadInputError("give at least one arXiv id, e.g. `eurekaclaw from-papers 1204.5721`")
    from eurekaclaw.tools.literature.ids import validate_paper_ids

    return validate_paper_ids(ids)
