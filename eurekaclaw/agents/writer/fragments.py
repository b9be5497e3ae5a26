"""Fragment-by-fragment repair of a statement, proof or assumption, so it is typeset, not shown
as source.

A block from the TheoryState is LaTeX written by a model. Before it reaches the compiler it passes
the one door for model text (LaTeX escapes a JSON decoder made into control characters restored;
the paper's own macros such as `\\eclevel` and tables removed; a sentence about how it was
checked replaced by a note, machine_claims.py), then each problem is fixed where it is, and the
rest of the block is left as written:

- references: `\\ref{lem:<id>}` (and the usual slips) point at the label the paper defines
  (labels.py); `\\cref` becomes `Lemma~\\ref`; a reference to nothing becomes the target's
  name in text;
- citations: keys that are not verified references become `[key]` in text;
- forbidden commands (files, shell, definitions; latex_policy.py) become their source in
  typewriter type, with their argument; macros the compile log reports as undefined likewise;
- outside math, `x_i` / `a^2` become `$x_i$` / `$a^2$`, a lone `_ ^ & # %` is escaped;
- unbalanced braces, `$` and environments are closed or dropped;
- characters pdflatex cannot set are shown as their code point.

Only when the repaired block still fails the sanitizer's block check (or the compile log keeps
pointing at it) is it printed verbatim as source, with a visible note (render.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from eurekaclaw.agents.writer.escape import CONTROL_CHARS, _char_ok, escape_text
from eurekaclaw.agents.writer.labels import ANY_REF_RE, LabelMap
from eurekaclaw.agents.writer.latex_policy import (
    AMPERSAND_ENVS,
    BLOCK_MODE_OK,
    DANGEROUS_ENVS,
    DROP_ARGUMENT,
    MATH_ENVS,
    is_blocked,
)
from eurekaclaw.agents.writer.machine_claims import check_block
from eurekaclaw.agents.writer.tex_skip import group_end
from eurekaclaw.model_text import for_display, strip_forged

_CITE_RE = re.compile(r"\\(cite[a-z]*)\*?((?:\[[^\]]*\])*)\{([^{}]*)\}")
_CS_RE = re.compile(r"\\([A-Za-z@]+)")
_BEGIN_END = re.compile(r"\\(begin|end)\s*\{([A-Za-z]+\*?)\}")
_SUBSUP_WORD = re.compile(
    r"(?<![\\A-Za-z0-9])((?:\\[A-Za-z]+|[A-Za-z0-9]+)(?:'+)?(?:[_^](?:\{[^{}$]*\}|\\[A-Za-z]+|[A-Za-z0-9]+|\*))+)"
)
_MATH_LIKE = MATH_ENVS | AMPERSAND_ENVS
# `pull_event`, `lemma_3b`: a name, not a subscript (the part after `_` is a word)
_IDENTIFIER = re.compile(r"^[A-Za-z0-9]+(?:_[A-Za-z0-9]*[A-Za-z]{2,}[A-Za-z0-9]*|_[0-9]+[A-Za-z]+)+$")
_GREEK = frozenset(
    """alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau
    upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega""".split()
)


@dataclass
class FragmentResult:
    text: str
    fixes: list[str] = field(default_factory=list)


def _source(fragment: str) -> str:
    return "\\textnormal{\\texttt{" + escape_text(fragment) + "}}"


def _fix_refs(text: str, labels: LabelMap | None, fixes: list[str]) -> str:
    if labels is None:
        return text

    def sub(m: re.Match[str]) -> str:
        cmd, target = m.group(1), m.group(2)
        label = labels.resolve(target)
        if label is None:
            fixes.append(f"reference to unknown label {target!r} shown as text")
            return "\\textnormal{" + escape_text(target.split(":", 1)[-1] or target) + "}"
        if label != target:
            fixes.append(f"reference {target!r} pointed at {label}")
        if cmd in ("cref", "Cref"):
            word = "Theorem" if labels.is_theorem(label) else ("Lemma" if label.startswith("lem:") else "")
            return (f"{word}~" if word else "") + f"\\ref{{{label}}}"
        if cmd == "nameref":
            cmd = "ref"
        return f"\\{cmd}{{{label}}}"

    return ANY_REF_RE.sub(sub, text)


def normalize_refs(text: str, labels: LabelMap) -> str:
    """References in prose pointed at the labels the paper defines (unknown ones are left for
    the sanitizer to drop)."""

    def sub(m: re.Match[str]) -> str:
        target = m.group(2)
        label = labels.resolve(target)
        if label is not None:
            return f"\\{m.group(1)}{{{label}}}"
        if target.startswith(("lem:", "lemma:", "thm:")):
            return escape_text(target.split(":", 1)[1])  # "Lemma~L2" rather than "Lemma"
        return m.group(0)

    return ANY_REF_RE.sub(sub, text)


def _fix_cites(text: str, cite_keys: set[str] | None, fixes: list[str]) -> str:
    if cite_keys is None:
        return text

    def sub(m: re.Match[str]) -> str:
        keys = [k.strip() for k in m.group(3).split(",") if k.strip()]
        good = [k for k in keys if k in cite_keys]
        bad = [k for k in keys if k not in cite_keys]
        if not bad:
            return m.group(0)
        fixes.append("citation(s) of unverified key(s) " + ", ".join(bad) + " shown as text")
        shown = "\\textnormal{[" + escape_text(", ".join(bad)) + "]}"
        if not good:
            return shown
        opts = m.group(2) if "\\" not in m.group(2) else ""
        return f"\\{m.group(1)}{opts}{{{','.join(good)}}}{shown}"

    return _CITE_RE.sub(sub, text)


def _fix_commands(text: str, undefined: Iterable[str], fixes: list[str]) -> str:
    """Forbidden and undefined control sequences become their source text."""
    undefined = set(undefined)
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] != "\\":
            out.append(text[i])
            i += 1
            continue
        m = _CS_RE.match(text, i)
        if m is None:
            out.append(text[i : i + 2])
            i += 2
            continue
        name = m.group(1)
        blocked = is_blocked(name) and name not in BLOCK_MODE_OK
        if not blocked and name not in undefined:
            out.append(m.group(0))
            i = m.end()
            continue
        end = m.end()
        if not blocked and end < len(text) and text[end] == "{":
            end = group_end(text, end)
        if blocked and name in DROP_ARGUMENT:
            j = end
            while j < len(text) and text[j] in " *":
                j += 1
            while j < len(text) and text[j] == "[":
                close = text.find("]", j)
                j = close + 1 if close > 0 else j + 1
            if j < len(text) and text[j] == "{":
                end = group_end(text, j)
        fixes.append(f"{'forbidden' if blocked else 'undefined'} command \\{name} shown as text")
        out.append(_source(text[i:end]))
        i = end
    return "".join(out)


def _drop_dangerous_envs(text: str, fixes: list[str]) -> str:
    for name in DANGEROUS_ENVS:
        pattern = re.compile(
            r"\\begin\s*\{" + re.escape(name) + r"\}(.*?)(\\end\s*\{" + re.escape(name) + r"\}|$)", re.S
        )
        if pattern.search(text):
            fixes.append(f"environment {name} shown as text")
            text = pattern.sub(lambda m: _source(m.group(0)), text)
    return text


def _balance_braces(text: str, fixes: list[str]) -> str:
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(text[i : i + 2])
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                fixes.append("unmatched } dropped")
                i += 1
                continue
            depth -= 1
        out.append(ch)
        i += 1
    if depth:
        fixes.append(f"{depth} unclosed {{ closed")
        out.append("}" * depth)
    return "".join(out)


def _balance_envs(text: str, fixes: list[str]) -> str:
    stack: list[str] = []
    pieces: list[str] = []
    last = 0
    for m in _BEGIN_END.finditer(text):
        kind, name = m.group(1), m.group(2)
        if kind == "begin":
            stack.append(name)
            continue
        if name in stack:
            while stack and stack[-1] != name:
                missing = stack.pop()
                pieces.append(text[last : m.start()] + f"\\end{{{missing}}}")
                last = m.start()
                fixes.append(f"unclosed environment {missing} closed")
            stack.pop()
        else:
            pieces.append(text[last : m.start()])
            last = m.end()
            fixes.append(f"unmatched \\end{{{name}}} dropped")
    pieces.append(text[last:])
    out = "".join(pieces)
    for name in reversed(stack):
        fixes.append(f"unclosed environment {name} closed")
        out += f"\n\\end{{{name}}}"
    return out


def _segments(text: str) -> list[tuple[bool, str]]:
    """(is_math, piece): math = $..$, $$..$$, \\(..\\), \\[..\\] and math/alignment environments."""
    out: list[tuple[bool, str]] = []
    buf: list[str] = []
    i = 0
    n = len(text)

    def flush(math: bool) -> None:
        if buf:
            out.append((math, "".join(buf)))
            buf.clear()

    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in "([":
                close = "\\)" if nxt == "(" else "\\]"
                j = text.find(close, i + 2)
                j = n if j < 0 else j + 2
                flush(False)
                out.append((True, text[i:j]))
                i = j
                continue
            m = _BEGIN_END.match(text, i)
            if m and m.group(1) == "begin" and m.group(2) in _MATH_LIKE:
                name = m.group(2)
                endm = re.compile(r"\\end\s*\{" + re.escape(name) + r"\}").search(text, m.end())
                j = endm.end() if endm else n
                flush(False)
                out.append((True, text[i:j]))
                i = j
                continue
            buf.append(text[i : i + 2])
            i += 2
            continue
        if ch == "$":
            delim = "$$" if text.startswith("$$", i) else "$"
            j = i + len(delim)
            while j < n:
                if text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(delim, j):
                    break
                j += 1
            j = min(n, j + len(delim)) if j < n else n
            flush(False)
            out.append((True, text[i:j]))
            i = j
            continue
        buf.append(ch)
        i += 1
    flush(False)
    return out


def _close_math(piece: str, fixes: list[str]) -> str:
    for open_, close in (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")):
        if piece.startswith(open_):
            if re.search(r"(?<!\\)[&#]", piece):  # no alignment in inline or display math
                piece = re.sub(r"(?<!\\)([&#])", r"\\\1", piece)
                fixes.append("& or # in math escaped")
            body = piece[len(open_) :]
            if not (body.endswith(close) and len(body) >= len(close) and not body.endswith("\\" + close)):
                fixes.append(f"unclosed {open_} closed")
                return piece.rstrip() + close
            return piece
    if piece.startswith("\\begin"):
        name = _BEGIN_END.match(piece)
        if name and not re.search(r"\\end\s*\{" + re.escape(name.group(2)) + r"\}\s*$", piece):
            fixes.append(f"unclosed environment {name.group(2)} closed")
            return piece + f"\n\\end{{{name.group(2)}}}"
    return piece


_PROTECTED = re.compile(
    r"\\(?:ref|eqref|autoref|pageref|label|cite[a-z]*|begin|end|textnormal|texttt|text|mathrm|operatorname)"
    r"(?![A-Za-z])\*?(?:\[[^\]]*\])*(?=\{)"
)


def _fix_text_segment(piece: str, fixes: list[str]) -> str:
    """Text outside math; command arguments such as labels, keys and text boxes are kept."""
    out: list[str] = []
    pos = 0
    for m in _PROTECTED.finditer(piece):
        if m.start() < pos:
            continue
        out.append(_fix_plain_text(piece[pos : m.start()], fixes))
        end = group_end(piece, m.end())
        out.append(piece[m.start() : end])
        pos = end
    out.append(_fix_plain_text(piece[pos:], fixes))
    return "".join(out)


def _escape_specials(part: str, fixes: list[str]) -> str:
    fixed = re.sub(r"(?<!\\)([_&#])", r"\\\1", part)
    fixed = re.sub(r"(?<!\\)\^", r"\\^{}", fixed)
    if fixed != part:
        fixes.append("stray special character(s) escaped")
    return fixed


MATH_ONLY = (
    "le leq ge geq ne neq lt gt ll gg sum prod int frac dfrac tfrac sqrt infty cdot cdots in notin "
    "subset subseteq supset cup cap forall exists mathbb mathcal mathbf mathrm mathsf log ln exp min "
    "max sup inf lim limsup liminf to mapsto rightarrow Rightarrow leftarrow implies iff times pm mp "
    "approx sim simeq propto partial nabla hat widehat overline underline mid lVert rVert Vert lceil "
    "rceil lfloor rfloor langle rangle binom alpha beta gamma delta epsilon varepsilon zeta eta theta "
    "vartheta iota kappa lambda mu nu xi pi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta "
    "Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega E R N Z Var Pr operatorname left right big Big"
).split()
_MATH_CMD = r"\\(?:" + "|".join(sorted(MATH_ONLY, key=len, reverse=True)) + r")(?![A-Za-z])"
_TOKEN = (
    r"(?:"
    + _MATH_CMD
    + r"(?:\s*\{[^{}]*\})*|(?<![A-Za-z])[A-Za-z](?![A-Za-z])|(?<![A-Za-z\\])[A-Za-z]+(?=[_^])|\d+(?:\.\d+)?|[=<>+\-*/|!'(]"
    r"|\)(?=[ \t]*[=<>+\-*/\\]))(?:[_^](?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9]))*"
)
_MATH_RUN = re.compile(_TOKEN + r"(?:[ \t]*" + _TOKEN + r")*")
_HAS_MATH_CMD = re.compile(_MATH_CMD)
_GREEK_WORD = re.compile(r"(?<![\\A-Za-z])(" + "|".join(sorted(_GREEK, key=len, reverse=True)) + r")(?=[_^])")


def _fix_plain_text(piece: str, fixes: list[str]) -> str:
    """Math commands used outside math (`\\mu \\le 1`) are set in math mode with their run."""
    out: list[str] = []
    pos = 0
    for m in _MATH_RUN.finditer(piece):
        run = m.group(0)
        if not _HAS_MATH_CMD.search(run):
            continue
        core = run.rstrip(" \t(")
        out.append(_fix_subsup(piece[pos : m.start()], fixes))
        fixes.append(f"{core!r} set in math mode")
        out.append("$" + _GREEK_WORD.sub(r"\\\1", core) + "$")
        pos = m.start() + len(core)
    out.append(_fix_subsup(piece[pos:], fixes))
    return "".join(out)


def _fix_subsup(piece: str, fixes: list[str]) -> str:
    out: list[str] = []
    pos = 0
    for m in _SUBSUP_WORD.finditer(piece):
        word = m.group(1)
        if _IDENTIFIER.match(word):
            continue  # pull_event, mu_star: an identifier, escaped as text below
        out.append(_escape_specials(piece[pos : m.start()], fixes))
        fixes.append(f"{word!r} set in math mode")
        base = re.match(r"[A-Za-z]+", word)
        if base and base.group(0) in _GREEK:
            word = "\\" + word
        out.append(f"${word}$")
        pos = m.end()
    out.append(_escape_specials(piece[pos:], fixes))
    return "".join(out)


def _fix_unicode(text: str, fixes: list[str]) -> str:
    out = []
    for ch in text:
        if ch in "\n\t" or _char_ok(ch):
            out.append(ch)
        else:
            fixes.append(f"character U+{ord(ch):04X} shown as its code point")
            out.append(f"\\textnormal{{[U+{ord(ch):04X}]}}")
    return "".join(out)


def repair_fragments(
    text: str,
    *,
    labels: LabelMap | None = None,
    cite_keys: set[str] | None = None,
    undefined: Iterable[str] = (),
    bad_chars: Iterable[str] = (),
    model_text: bool = True,
) -> FragmentResult:
    """The block with each problem fixed in place (see the module docstring); `model_text` False
    for the user's own statement (no sentence of it is the model's)."""
    fixes: list[str] = []
    text, forged = strip_forged(for_display(text))
    fixes += forged
    if model_text:
        text, n = check_block(text)
        if n:
            fixes.append(f"{n} sentence(s) of the model about how it was checked replaced by a note")
    text = CONTROL_CHARS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    while "^^" in text:
        text = text.replace("^^", "^")
        fixes.append("^^ notation removed")
    for ch in set(bad_chars):
        if ch in text:
            text = text.replace(ch, f"\\textnormal{{[U+{ord(ch):04X}]}}")
            fixes.append(f"character U+{ord(ch):04X} shown as its code point")
    text = _drop_dangerous_envs(text, fixes)
    text = _fix_refs(text, labels, fixes)
    text = _fix_cites(text, cite_keys, fixes)
    text = _fix_commands(text, undefined, fixes)
    text = _fix_unicode(text, fixes)
    if re.search(r"(?m)^[ \t]*%", text):
        text = re.sub(r"(?m)^[ \t]*%.*\n?", "", text)
    if re.search(r"(?<!\\)%", text):
        text = re.sub(r"(?<!\\)%", r"\\%", text)
        fixes.append("% escaped")
    text = _balance_braces(text, fixes)
    text = _balance_envs(text, fixes)
    pieces = []
    for is_math, piece in _segments(text):
        pieces.append(_close_math(piece, fixes) if is_math else _fix_text_segment(piece, fixes))
    return FragmentResult("".join(pieces), list(dict.fromkeys(fixes)))


def statement_tex(text: str) -> str:
    """The user's statement for prose: its math typeset, anything else (commands that reach
    files, definitions, unknown environments) shown as text; escaped entirely when even the
    repaired text fails the sanitizer's check. Never interpreted as LaTeX code."""
    from eurekaclaw.agents.writer.sanitize import sanitize_latex

    repaired = repair_fragments(" ".join(text.split()), model_text=False).text
    return repaired if not sanitize_latex(repaired, mode="block").changed else escape_text(text)
