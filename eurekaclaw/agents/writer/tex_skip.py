"""Where a TeX construct ends: a balanced group, a definition with its body, a stream command's
operands, an environment. The sanitizer (sanitize.py) skips what it removes with these."""

from __future__ import annotations

import re

from eurekaclaw.agents.writer.latex_policy import DOCUMENT_DEFINERS

OPT_ARG = re.compile(r"\s*\[[^\[\]{}]*\]")


def group_end(text: str, start: int) -> int:
    """Index just past the balanced {...} group that opens at `start` (or len(text))."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def skip_spaces(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def skip_group(text: str, i: int) -> int:
    j = skip_spaces(text, i)
    if j < len(text) and text[j] == "{":
        return group_end(text, j)
    return i


def skip_definition(name: str, text: str, i: int) -> int:
    """Skip what a definer consumes: the defined name, parameters and body."""
    j = skip_spaces(text, i)
    if j < len(text) and text[j] == "*":
        j += 1
    j = skip_spaces(text, j)
    if j < len(text) and text[j] == "\\":
        m = re.match(r"\\([A-Za-z]+|.)", text[j:], re.DOTALL)
        j += m.end() if m else 1
    elif j < len(text) and text[j] == "{":
        j = group_end(text, j)
    if name in ("let", "futurelet"):
        j = skip_spaces(text, j)
        if j < len(text) and text[j] == "=":
            j = skip_spaces(text, j + 1)
        m = re.match(r"\\([A-Za-z]+|.)|.", text[j:], re.DOTALL)
        return j + (m.end() if m else 0)
    if name in ("def", "gdef", "edef", "xdef"):
        # parameter text (#1#2, delimiters) runs up to the body's opening brace
        k = text.find("{", j)
        if k != -1 and k - j <= 40 and "\n" not in text[j:k]:
            return group_end(text, k)
        return j
    while True:
        m = OPT_ARG.match(text, j)
        if not m:
            break
        j = m.end()
    groups = 2 if name in ("newenvironment", "renewenvironment") else 1
    if name in DOCUMENT_DEFINERS:
        # the defined name was skipped above; then the argument spec and body (+ end code)
        groups = 1 if name.endswith("Copy") else 3 if name.endswith("Environment") else 2
        if name.endswith("Copy"):
            j = skip_spaces(text, j)
            m = re.match(r"\\([A-Za-z]+|.)", text[j:], re.DOTALL)
            if m:
                return j + m.end()
    for _ in range(groups):
        j = skip_group(text, j)
    return j


def skip_stream_operands(text: str, i: int) -> int:
    j = skip_spaces(text, i)
    m = re.match(r"\\[A-Za-z]+|\d+", text[j:])
    if m:
        j = skip_spaces(text, j + m.end())
    if j < len(text) and text[j] == "=":
        j = skip_spaces(text, j + 1)
    if j < len(text) and text[j] == "{":
        return group_end(text, j)
    m = re.match(r"[^\s{}\\]+", text[j:])  # a file name
    return j + m.end() if m else j


def matching_end(text: str, name: str, start: int) -> int:
    """Index just past the \\end{name} that closes an environment whose body starts at start."""
    pattern = re.compile(r"\\(begin|end)\s*\{" + re.escape(name) + r"\}")
    depth = 1
    for m in pattern.finditer(text, start):
        depth += 1 if m.group(1) == "begin" else -1
        if depth == 0:
            return m.end()
    return len(text)
