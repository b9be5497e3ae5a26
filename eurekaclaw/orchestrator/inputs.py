"""Checks of what the user typed, before anything is created or any request is made."""

from __future__ import annotations

import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from eurekaclaw.errors import BadInputError, ConfigError, MissingConfigError

MAX_STATEMENT_CHARS = 20_000
# `from-papers` extends "a few papers": the survey reads each one in full and the brief must fit
# one prompt, so more ids than this would be silently truncated downstream. Documented in docs/cli.md.
MAX_PAPER_IDS = 20

# A relation, quantifier or order symbol makes even a short text a claim ("x >= 0").
_RELATION = re.compile(
    r"[=<>≤≥≠≈∈∉⊂⊆⊃⊇→⇒⇔↔∀∃]|\\(?:le|ge|leq|geq|neq|ne|in|subset|subseteq|to|implies|iff|forall|exists)\b"
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MIN_CONJECTURE_WORDS = 4
MIN_CONJECTURE_CHARS = 25


def _reject_undecodable(text: str, what: str) -> None:
    """argv bytes that are not UTF-8 arrive as lone surrogates (PEP 383); no session file can
    hold them, so they are refused here rather than after the session folder exists."""
    for i, ch in enumerate(text):
        if "\ud800" <= ch <= "\udfff":
            shown = f"byte 0x{ord(ch) - 0xDC00:02x}" if "\udc80" <= ch <= "\udcff" else "a lone surrogate"
            raise BadInputError(f"the {what} is not valid UTF-8 text ({shown} at character {i + 1})")


def clean_statement(statement: str, what: str = "statement") -> str:
    if statement is None or not statement.strip():
        raise BadInputError(f"the {what} is empty")
    if "\x00" in statement:
        raise BadInputError(f"the {what} contains NUL bytes")
    _reject_undecodable(statement, what)
    for i, ch in enumerate(statement):
        # terminal escapes would reach the live display, the logs and the paper verbatim
        if (ord(ch) < 32 and ch not in "\t\n\r") or 127 <= ord(ch) < 160:
            raise BadInputError(f"the {what} contains a control character (U+{ord(ch):04X} at character {i + 1})")
    if len(statement) > MAX_STATEMENT_CHARS:
        raise BadInputError(f"the {what} is {len(statement):,} characters long; the limit is {MAX_STATEMENT_CHARS:,}")
    return statement.strip()


def check_conjecture(statement: str) -> str:
    """A text that can be formalized: a relation (x >= 0, a ≤ b, \\in) or a sentence of at
    least MIN_CONJECTURE_WORDS words. "x", "bandits" or "prove it" would make the model invent
    a theorem, so they are refused before any model call."""
    text = clean_statement(statement)
    words = _WORD.findall(text)
    if _RELATION.search(text) and words:
        return text
    # a long text counts too: scripts without spaces between words (Chinese, Japanese) are one "word"
    if len(words) >= MIN_CONJECTURE_WORDS or len(text) >= MIN_CONJECTURE_CHARS:
        return text
    raise BadInputError(
        f"{text!r} is too short or vague to be a conjecture: state the claim itself, with a relation "
        "or as a full sentence",
        hint='e.g. eurekaclaw prove "For all real x, x^2 - 2x + 1 >= 0"; to study an area use `eurekaclaw explore`',
    )


def check_area(area: str) -> str:
    """An area to explore: a few characters of real words ("x" or "??" would make the survey
    search for nothing and the model invent a field)."""
    text = clean_statement(area, what="research area")
    if not any(len(w) >= 3 for w in _WORD.findall(text)):
        raise BadInputError(
            f"{text!r} is too short to be a research area",
            hint='e.g. eurekaclaw explore "multi-armed bandits with heavy tails"',
        )
    return text


def check_output_dir(output: str | None) -> str:
    """The output directory template ('{session_id}' is filled in later), as an absolute path so
    a resume from another directory writes to the same place. It must be creatable and
    writable: the nearest existing parent is tried with a temporary folder that is removed at
    once (os.access says yes for root on /proc), so a rejected command leaves no trace."""
    template = output or os.path.join("results", "{session_id}")
    _reject_undecodable(template, "output path")
    if "\x00" in template:
        raise BadInputError("the output path contains NUL bytes")
    target = Path(template.replace("{session_id}", "")).expanduser().absolute()
    probe = _nearest_existing(
        target, lambda reason: BadInputError(f"output directory {_short(target)} cannot be used: {reason}")
    )
    if not probe.is_dir():
        raise BadInputError(f"output directory {target} cannot be written: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise BadInputError(f"output directory {target} cannot be written: no write permission on {probe}")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".eurekaclaw-probe-", dir=probe))
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise BadInputError(f"output directory {target} cannot be written: {probe}: {reason}") from None
    return str(Path(template).expanduser().absolute())


def _short(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 120 else text[:80] + "…" + text[-30:]


def _nearest_existing(target: Path, error: Any) -> Path:
    """`target` or its nearest existing ancestor; `error(reason)` is raised when the path
    cannot even be looked at (a name longer than the file system allows, a loop of links)."""
    probe = target
    try:
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        probe.is_dir()
    except OSError as exc:
        raise error(exc.strerror or type(exc).__name__) from None
    return probe


def check_paper_ids(ids: list[str]) -> list[str]:
    if not ids:
        raise BadInputError("give at least one arXiv id, e.g. `eurekaclaw from-papers 1204.5721`")
    for raw in ids:
        _reject_undecodable(raw, "paper id")
    if len(ids) > MAX_PAPER_IDS:
        raise BadInputError(
            f"{len(ids)} paper ids given; the limit is {MAX_PAPER_IDS}",
            hint="choose the papers to extend, or use `eurekaclaw explore` for an area",
        )
    from eurekaclaw.tools.literature.ids import validate_paper_ids

    return validate_paper_ids(ids)


def check_budget(value: float | None, option: str = "--budget-usd") -> float | None:
    """A budget is a finite, non-negative number (1e309 parses as infinity, which no JSON
    file can hold and which would mean 'no limit' in disguise)."""
    if value is None:
        return None
    if not math.isfinite(value) or value < 0:
        raise BadInputError(f"{option} must be a finite number ≥ 0 (got {value})")
    return value


def check_settings(settings: Any) -> Any:
    """What pydantic's ranges let through: non-finite numbers, and an EUREKACLAW_DIR that
    cannot be a directory (a file, or under one). Raised before anything is written."""
    for name, value in settings:
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"invalid setting {name.upper()} (got {value}): must be a finite number")
    check_home_dir(Path(settings.eurekaclaw_dir))
    return settings


def check_env_files(*paths: Path) -> None:
    """./.env (and others given) must be regular files when present: python-dotenv would wait
    forever on a FIFO and fail on a directory, before any setting is known."""
    for path in (Path(".env"), *paths):
        try:
            if (path.exists() or path.is_symlink()) and not path.is_file():
                raise ConfigError(
                    f"{path} is not a regular file; settings are read from it",
                    hint="remove it or replace it with a KEY=value file",
                )
        except OSError as exc:
            raise ConfigError(f"{path} cannot be read: {exc.strerror or exc}") from None


def check_home_dir(home: Path) -> None:
    target = home.expanduser().absolute()
    _reject_undecodable(str(target), "EUREKACLAW_DIR path")
    probe = _nearest_existing(
        target, lambda reason: MissingConfigError(f"EUREKACLAW_DIR={_short(target)} cannot be used: {reason}")
    )
    hint = "point EUREKACLAW_DIR at a directory; the default is ~/.eurekaclaw"
    if not probe.is_dir():
        where = "is a file" if probe == target else f"is under {probe}, which is not a directory"
        raise MissingConfigError(f"EUREKACLAW_DIR={target} {where}", hint=hint)
    if probe != target:
        # it will be created: try that where it would happen (/proc/x, /sys/x look writable to root)
        try:
            os.rmdir(tempfile.mkdtemp(prefix=".eurekaclaw-probe-", dir=probe))
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise MissingConfigError(
                f"EUREKACLAW_DIR={target} cannot be created: {probe}: {reason}", hint=hint
            ) from None
