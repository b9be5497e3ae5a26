"""Is one title the same as another? Titles compared word by word after normalisation.

Normalised away: case, punctuation, accents, LaTeX and markup (`$\\sqrt{T}$` = `√T`), hyphenation
(`multi-armed` = `multiarmed` = `multi armed`), British/American spelling, and the *stop words*
below. Anything else that differs is a content word, and a content word that differs means a
different title, however high the similarity: negations ("not", "no", "non-", "without") and
numbers are content words. A subtitle present on one side only is allowed (see _subtitle_note).

Used by matching.py, which also asks that authors, year or venue agree.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any

from eurekaclaw.tools.literature.records import ascii_fold

VERIFIED_AT = 0.80
SUSPICIOUS_AT = 0.50

# Words that carry no identity: two titles differing only in these are the same title.
# Negations ("not", "no", "non", "without", ...) and numbers are deliberately absent.
STOP_WORDS = frozenset(
    "a an the of in on at to for and or with by from via as is are be its it this that into onto "
    "toward towards using".split()
)
NEGATIONS = frozenset("not no non without nor never cannot neither none".split())
WORD = re.compile(r"[a-z0-9]+")

# --------------------------------------------------------------------------------------------
# text folding
# --------------------------------------------------------------------------------------------

# Letters NFKD does not decompose; without these "Łojasiewicz" would lose its first letter.
_TRANSLIT = str.maketrans(
    {
        "ł": "l",
        "Ł": "L",
        "ø": "o",
        "Ø": "O",
        "ß": "ss",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "þ": "th",
        "ı": "i",
        "ℓ": "ell",
        "’": "'",
        "‘": "'",
    }
)
# Math symbols that sources write as Unicode and authors as LaTeX: both sides must agree.
_SYMBOLS = {"√": " ", "∞": " infinity ", "≤": " leq ", "≥": " geq ", "×": " times "}


def fold(text: str) -> str:
    """ASCII, accents removed, Greek letters spelled out (ε -> epsilon, as LaTeX writes it)."""
    out: list[str] = []
    # The table before NFKC, which would turn ℓ into a bare "l"; NFKC then turns the micro sign
    # into Greek mu and superscript digits into digits.
    for ch in unicodedata.normalize("NFKC", text.translate(_TRANSLIT)):
        if ch in _SYMBOLS:
            out.append(_SYMBOLS[ch])
        elif "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff":
            out.append(f" {_greek_name(ch)} ")
        else:
            out.append(ch)
    return ascii_fold("".join(out))


def _greek_name(ch: str) -> str:
    words = unicodedata.name(ch, "").lower().split()
    words = [
        w
        for w in words
        if w not in ("greek", "small", "capital", "letter", "symbol", "lunate", "final", "with", "tonos")
    ]
    return words[0] if words else ""


# --------------------------------------------------------------------------------------------
# titles
# --------------------------------------------------------------------------------------------

# JATS / MathML / HTML tags in CrossRef titles. A tag is a name plus name="value" attributes,
# so "for k<n and m>1" in a title is left alone.
_MARKUP_TAG = re.compile(r"""</?[A-Za-z][\w:.-]*(?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*/?>""")
_LATEX_ACCENT = re.compile(r"\\[\"'`^~=.]")  # G\"odel -> Godel
_LATEX_CMD = re.compile(r"\\([A-Za-z]+)")
_POSSESSIVE = re.compile(r"'s\b")
# A dash or apostrophe inside a word joins it: "multi-armed" and "multiarmed" are one word.
_JOINER = re.compile(r"(?<=[a-z0-9])[-\u2010\u2011\u2012\u2013\u2212'](?=[a-z0-9])")
# LaTeX that only typesets (\sqrt{T}, \mathcal{O}, \tilde{O}): sources drop it or write it as
# Unicode that folds away, so it must not count as a word.
_LATEX_LAYOUT = frozenset(
    "sqrt mathcal mathbb mathrm mathbf mathsf mathit mathscr mathfrak boldsymbol bm tilde "
    "widetilde hat widehat bar overline underline vec dot ddot left right big bigl bigr Big frac "
    "dfrac tfrac cdot cdots ldots dots operatorname text textrm textit textbf textsc texttt emph "
    "mbox ensuremath displaystyle quad qquad limits nolimits".split()
)
_LATEX_NAMES = {
    "infty": "infinity",
    "le": "leq",
    "ge": "geq",
    "varepsilon": "epsilon",
    "vartheta": "theta",
    "varphi": "phi",
    "varpi": "pi",
    "varrho": "rho",
    "varsigma": "sigma",
    "o": "o",
    "l": "l",
    "i": "i",
}
# The same math written as a bare word ("sqrt(T)") is layout too.
_LAYOUT_WORDS = frozenset({"sqrt"})

# British spellings mapped to American, applied to both titles alike, so a rule only has to
# avoid merging two *different* English words (hence the minimum stem lengths).
_SPELLING_RULES = [
    (re.compile(r"(?<=[a-z]{2})isation(s?)$"), r"ization\1"),
    (re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|er|ers)$"), r"iz\1"),
    (re.compile(r"(?<=[a-z]{2})ys(e|es|ed|ing|er|ers)$"), r"yz\1"),
    (re.compile(r"(?<=[a-z]{3})our(s|ed|ing|al|ally|ite|ites|hood|hoods|able)?$"), r"or\1"),
    (re.compile(r"(?<=[a-z]{3}[aeiou])ll(ing|ed|er|ers)$"), r"l\1"),
    (re.compile(r"(?<=[a-z]{2})([tb])re(s?)$"), r"\1er\2"),
    (re.compile(r"(?<=[a-z]{2})([tb])red$"), r"\1ered"),
    (re.compile(r"(?<=[a-z]{2})ogue(s?)$"), r"og\1"),
    (re.compile(r"(?<=[a-z])dgement(s?)$"), r"dgment\1"),
]
_SPELLING_WORDS = {
    "programme": "program",
    "programmes": "programs",
    "grey": "gray",
    "aluminium": "aluminum",
    "sulphur": "sulfur",
    "defence": "defense",
    "licence": "license",
    "offence": "offense",
    "artefact": "artifact",
    "artefacts": "artifacts",
    "ageing": "aging",
}
_SUBTITLE_SEP = re.compile(r"\s*(?::|\?|\s[-\u2013\u2014]\s|\u2014|\.\s)\s*")


def american(word: str) -> str:
    if word in _SPELLING_WORDS:
        return _SPELLING_WORDS[word]
    for pattern, repl in _SPELLING_RULES:
        new = pattern.sub(repl, word)
        if new != word:
            return new
    return word


def _delatex(text: str) -> str:
    text = _LATEX_ACCENT.sub("", text)

    def command(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in _LATEX_NAMES:
            return f" {_LATEX_NAMES[name]} "
        if name in _LATEX_LAYOUT or len(name) == 1:  # \v{s}, \c{c}: accents
            return " "
        return f" {name} "

    return _LATEX_CMD.sub(command, text)


def title_tokens(title: str) -> list[str]:
    """The words of a title as compared: folded, de-LaTeXed, hyphens joined, American spelling."""
    text = _MARKUP_TAG.sub(" ", html.unescape(title or ""))
    text = fold(_delatex(text)).lower()
    text = _JOINER.sub("", _POSSESSIVE.sub("", text))
    return [american(w) for w in WORD.findall(text) if w not in _LAYOUT_WORDS]


def _merge_compounds(tokens: list[str], other: set[str]) -> list[str]:
    """Join runs of 2–3 words that the other title writes as one ("multi armed" / "multiarmed")."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for width in (3, 2):
            joined = american("".join(tokens[i : i + width]))
            if i + width <= len(tokens) and joined in other and tokens[i] not in other:
                out.append(joined)
                i += width
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


def aligned_tokens(a: str, b: str) -> tuple[list[str], list[str]]:
    ta, tb = title_tokens(a), title_tokens(b)
    ta = _merge_compounds(ta, set(tb))
    tb = _merge_compounds(tb, set(ta))
    return ta, tb


def _overlap(a: list[Any], b: list[Any]) -> float:
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / max(len(sa), len(sb))


def token_similarity(ta: list[str], tb: list[str]) -> float:
    """Mean of word overlap and word-pair (bigram) overlap, each shared / the larger count.
    The bigram half is what makes order count: inserting "not" breaks two pairs, and
    swapping two words breaks the pairs around them."""
    words = _overlap(ta, tb)
    if len(ta) < 2 or len(tb) < 2:
        return words
    pairs = _overlap(list(zip(ta, ta[1:], strict=False)), list(zip(tb, tb[1:], strict=False)))
    return (words + pairs) / 2


def title_similarity(a: str, b: str) -> float:
    """Order-aware similarity in [0, 1] of two titles (see token_similarity)."""
    return token_similarity(*aligned_tokens(a, b))


def content(tokens: list[str]) -> list[str]:
    return [t for t in tokens if t not in STOP_WORDS]


def _split_subtitle(title: str) -> tuple[str, str] | None:
    """(main title, subtitle) at the first ':' / '?' / spaced dash / '. ', if both are non-empty."""
    parts = _SUBTITLE_SEP.split(html.unescape(title or ""), maxsplit=1)
    if len(parts) != 2 or not content(title_tokens(parts[0])) or not content(title_tokens(parts[1])):
        return None
    return parts[0], parts[1]


def _same_content(a: str, b: str) -> bool:
    ta, tb = aligned_tokens(a, b)
    return Counter(content(ta)) == Counter(content(tb))


@dataclass(frozen=True)
class TitleMatch:
    similarity: float
    close: bool  # the same title for citation purposes
    only_cited: tuple[str, ...] = ()  # content words only the cited title has
    only_found: tuple[str, ...] = ()  # content words only the source's title has
    note: str = ""  # how a close title still differs (subtitle, word order)

    def difference(self) -> str:
        def words(ws: tuple[str, ...]) -> str:
            if not ws:
                return "nothing"
            return ", ".join(repr(w) + (" (a negation)" if w in NEGATIONS else "") for w in ws)

        return f"cited has {words(self.only_cited)}, source has {words(self.only_found)}"


def compare_titles(cited: str, found: str, *, by_id: bool = False) -> TitleMatch:
    """Is `found` the cited title? `by_id`: the record was fetched by the citation's own DOI or
    arXiv id, so a main title of a single word (CrossRef keeps subtitles apart) may stand alone."""
    ta, tb = aligned_tokens(cited, found)
    sim = round(token_similarity(ta, tb), 4)
    ca, cb = content(ta), content(tb)
    only_cited = tuple(sorted((Counter(ca) - Counter(cb)).elements()))
    only_found = tuple(sorted((Counter(cb) - Counter(ca)).elements()))
    if not ca or not cb:
        return TitleMatch(sim, False, only_cited, only_found)
    if not only_cited and not only_found:
        if ca == cb or sim >= VERIFIED_AT:
            return TitleMatch(sim, True)
        return TitleMatch(sim, False, note="the same words in a different order")
    note = _subtitle_note(cited, found, by_id)
    if note:
        return TitleMatch(sim, True, only_cited, only_found, note)
    return TitleMatch(sim, False, only_cited, only_found)


def _subtitle_note(cited: str, found: str, by_id: bool) -> str:
    """Why two titles that differ only by a part after (or before) a colon are the same title.
    A subtitle is often dropped (CrossRef stores it in a separate field, BibTeX entries shorten
    titles); the shared part must still be specific: two content words, or one when the record
    came by the citation's own id. A leading name ("ChemCrow: ...") dropped by a journal is
    allowed when the rest has at least three content words."""
    min_main = 1 if by_id else 2
    for whole, other, side in ((cited, found, "cited"), (found, cited, "source's")):
        split = _split_subtitle(whole)
        if split is None:
            continue
        main, sub = split
        if len(content(title_tokens(main))) >= min_main and _same_content(main, other):
            return f"subtitle {sub.strip()!r} only in the {side} title"
        if len(content(title_tokens(sub))) >= 3 and _same_content(sub, other):
            return f"leading {main.strip()!r} only in the {side} title"
    return ""
