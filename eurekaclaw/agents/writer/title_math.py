"""A user's plain-text statement typeset as LaTeX: the fallback title (and any plain formula).

Users write math as plain text: `sum_i 8 ln T / Delta_i`, `x_n <= 1/n for all n >= 1`. Printed
as text, `<=` stays `<=` and `sum_i` becomes an italic "sum" with a subscript. Here each run of
formula tokens becomes one `$...$` with its operators and names typeset (`\\le`, `\\sum_i`,
`\\ln`, `\\Delta_i`, `\\sqrt{...}`); prose words stay text; math the user already put in `$...$`
is kept as written. The result is checked with the paper's sanitizer and falls back to the
escaped text, so nothing the user wrote is interpreted as LaTeX code.

The fallback title is the statement's whole first sentence, never cut with "...": a sentence
too long for a title gives a generic title instead (the statement is in the abstract).
"""

from __future__ import annotations

import re

from eurekaclaw.agents.writer.escape import escape_text

GENERIC_TITLE = "A machine-assisted study of a mathematical statement"
MAX_TITLE_CHARS = 250
GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "phi", "varphi", "chi", "psi", "omega",
    "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Phi", "Psi", "Omega",
}  # fmt: skip
FUNCTIONS = {"ln", "log", "exp", "sin", "cos", "tan", "max", "min", "sup", "inf", "lim", "det", "liminf", "limsup"}
BIG = {"sum": "sum", "prod": "prod", "int": "int", "infinity": "infty", "infty": "infty"}
MATH_NAMES = GREEK | FUNCTIONS | set(BIG) | {"sqrt"}
# names that are also English words: math only with a script or an argument ("sum_i", "max(")
WORDS_TOO = {"sum", "min", "max", "inf", "int", "exp", "log", "lim", "sup", "det", "tan", "sin", "eta", "mu", "nu"}
ABBREVIATIONS = {"e.g", "i.e", "al", "cf", "resp", "vs", "etc", "Thm", "Lem", "Eq", "Fig", "Sec"}
OPERATORS = {
    "<=": r"\le",
    ">=": r"\ge",
    "!=": r"\ne",
    "==": "=",
    "->": r"\to",
    "+/-": r"\pm",
    "≤": r"\le",
    "≥": r"\ge",
    "≠": r"\ne",
    "±": r"\pm",
    "→": r"\to",
    "∞": r"\infty",
    "*": r"\cdot",
}
_OPERATOR_RE = re.compile("|".join(re.escape(k) for k in sorted(OPERATORS, key=len, reverse=True)))
_MATH_CHARS = set("_^=<>+*/\\|≤≥≠±→∞")
_ARTICLES = {"a", "A", "I"}
_NUMBER = re.compile(r"^[0-9]+(?:[.,][0-9]+)*$")
_COEFFICIENT = re.compile(r"^[0-9]+(?:\.[0-9]+)?[a-z]$")
_LETTER_PREFIX = re.compile(r"^([A-Za-z])-([A-Za-z]{2,}.*)$")  # "K-armed"
_TRAILING = re.compile(r"^(.*?)([,;:.!?]*)$", re.S)
_INLINE = re.compile(r"(\$[^$]+\$)")
_WORD = re.compile(r"(?<![\\A-Za-z])([A-Za-z]+)")

STRONG, OP, WEAK, PROSE = "strong", "op", "weak", "prose"


def _kind(core: str) -> str:
    """How a whitespace-separated token (trailing punctuation removed) reads: a formula piece
    (strong), an operator, a number or article that is math only beside a formula (weak), or prose."""
    if not core:
        return PROSE
    if core in OPERATORS or core in {"+", "-", "=", "<", ">", "/"}:
        return OP
    bare = core.strip("()[]{}")
    if not bare:
        return OP  # a lone bracket belongs to the formula around it
    if any(ch in _MATH_CHARS for ch in core):
        return STRONG
    if core[0] in "([" and core[-1] in ")]" and "," in bare and _NUMBER.match(bare):
        return STRONG  # an interval "[0,1]"
    if _NUMBER.match(bare) or bare in _ARTICLES or bare in WORDS_TOO:
        return WEAK
    if len(bare) == 1 and bare.isalpha():
        return STRONG
    if _COEFFICIENT.match(bare):
        return STRONG  # "2x", "0.5t": a coefficient times a variable (not "2nd", "3D")
    head = re.match(r"[A-Za-z]+(?=\()", bare)
    if head and (len(head.group(0)) == 1 or head.group(0) in MATH_NAMES):
        return STRONG  # "O(sqrt(K", "f(x)", "max(a,"
    if bare in MATH_NAMES:
        return STRONG
    if core != bare and re.fullmatch(r"[0-9A-Za-z.,]+", bare) and (any(c.isdigit() for c in bare) or len(bare) == 1):
        return STRONG  # "(1", "[0,1]", "T)": brackets around numbers and letters
    return PROSE


def _braced(text: str, start: int) -> tuple[str, int] | None:
    """The balanced (...) group at text[start] as its inside, and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i], i + 1
    return None


def _scripts(text: str) -> str:
    """`x^(n+1)` -> `x^{n+1}`, `T^10` -> `T^{10}`, `x_ij` -> `x_{ij}`, `sqrt(K T)` -> `\\sqrt{K T}`."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "^_" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "(" and (group := _braced(text, i + 1)):
                out.append(ch + "{" + _scripts(group[0]) + "}")
                i = group[1]
                continue
            run = re.match(r"[A-Za-z0-9]+", text[i + 1 :])
            if run and len(run.group(0)) > 1 and not run.group(0).isalpha() or (run and run.group(0).isdigit()):
                out.append(ch + "{" + run.group(0) + "}")
                i += 1 + len(run.group(0))
                continue
        if text.startswith("\\sqrt(", i) and (group := _braced(text, i + 5)):
            out.append("\\sqrt{" + _scripts(group[0]) + "}")
            i = group[1]
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _names(text: str) -> str:
    def name(m: re.Match[str]) -> str:
        word = m.group(1)
        if word in GREEK or word in FUNCTIONS or word == "sqrt":
            command = "\\" + word
        elif word in BIG:
            command = "\\" + BIG[word]
        else:
            return word
        after = text[m.end() : m.end() + 1]
        return command + (" " if after.isalnum() else "")

    return _WORD.sub(name, text)


def formula_tex(text: str) -> str:
    """A plain formula's LaTeX (without the dollars)."""
    text = _OPERATOR_RE.sub(lambda m: " " + OPERATORS[m.group(0)] + " ", text)
    text = re.sub(r"[%&#~]", lambda m: "\\" + m.group(0) if m.group(0) != "~" else r"\sim ", text)
    return " ".join(_scripts(_names(text)).split())


def _tokens(text: str) -> list[tuple[str, str, str]]:
    """(core, trailing punctuation, kind) per whitespace-separated token."""
    out = []
    for token in text.split():
        m = _TRAILING.match(token)
        core, punct = (m.group(1), m.group(2)) if m else (token, "")
        if not core:
            core, punct = punct, ""
        out.append((core, punct, _kind(core)))
    return out


def _runs(tokens: list[tuple[str, str, str]]) -> list[tuple[bool, list[tuple[str, str, str]]]]:
    """Consecutive tokens grouped: (is_formula, tokens). A formula is a run of strong, operator
    and weak tokens with at least one strong or operator token; punctuation ends a run."""
    groups: list[tuple[bool, list[tuple[str, str, str]]]] = []
    current: list[tuple[str, str, str]] = []

    def close() -> None:
        trailing: list[tuple[str, str, str]] = []
        # "1/n^2 (a": a number or article after a formula piece is prose; after an operator it is math
        while len(current) > 1 and current[-1][2] == WEAK and current[-2][2] != OP and not current[-1][1]:
            trailing.insert(0, current.pop())
        if current:
            formula = any(k in (STRONG, OP) for _, _, k in current)
            groups.append((formula, list(current)))
            current.clear()
        if trailing:
            groups.append((False, trailing))

    for tok in tokens:
        if tok[2] == PROSE and not _open(current, parens=False):
            close()
            groups.append((False, [tok]))
            continue
        if tok[1] and _open([*current, tok]):  # "sum_{i:" - inside a group, not the end of a formula
            tok = (tok[0] + tok[1], "", STRONG)
        current.append(tok)
        if tok[1]:  # "1/n," - the comma ends the formula
            close()
    close()
    return groups


def _open(tokens: list[tuple[str, str, str]], parens: bool = True) -> bool:
    """Whether the tokens leave a brace (or a parenthesis) open: the formula's group continues."""
    text = "".join(core for core, _, _ in tokens)
    return text.count("{") > text.count("}") or (parens and text.count("(") > text.count(")"))


def _prose_token(core: str) -> str:
    m = _LETTER_PREFIX.match(core)
    if m:  # "K-armed": the letter is a variable
        return f"${m.group(1)}$-" + escape_text(m.group(2))
    return escape_text(core)


def _plain_part(text: str) -> str:
    pieces: list[str] = []
    for formula, toks in _runs(_tokens(text)):
        if formula:
            body = formula_tex(" ".join(core + (p if i < len(toks) - 1 else "") for i, (core, p, _) in enumerate(toks)))
            pieces.append(f"${body}$" + escape_text(toks[-1][1]))
        else:
            pieces.append(" ".join(_prose_token(core) + escape_text(p) for core, p, _ in toks))
    return " ".join(pieces)


def plain_to_tex(text: str) -> str:
    """The user's plain statement as LaTeX (see the module doc); escaped text when the result
    would not pass the paper's sanitizer unchanged."""
    from eurekaclaw.agents.writer.sanitize import sanitize_latex

    text = " ".join(text.split())
    if not text:
        return ""
    parts = [p if p.startswith("$") else _plain_part(p) for p in _INLINE.split(text) if p.strip()]
    out = " ".join(p.strip() for p in parts)
    return out if not sanitize_latex(out, mode="block").changed else escape_text(text)


def first_sentence(text: str) -> str:
    """The first sentence, whole: ends at '.', '!' or '?' followed by a space and a capital
    letter (or the end), so '0.5', 'e.g. x' and '1/n.' do not end it early."""
    text = " ".join(text.split())
    for m in re.finditer(r"[.!?](?=\s+[A-Z]|$)", text):
        word = re.search(r"(\S*)$", text[: m.start()])
        if word and word.group(1).rsplit("(", 1)[-1] in ABBREVIATIONS:
            continue
        return text[: m.start() + 1].rstrip(".")
    return text.rstrip(".")


def fallback_title(informal: str) -> str:
    """The title built from the user's statement: its first sentence typeset, never cut."""
    sentence = first_sentence(informal)
    if not sentence or len(sentence) > MAX_TITLE_CHARS:
        return GENERIC_TITLE
    return plain_to_tex(sentence)
