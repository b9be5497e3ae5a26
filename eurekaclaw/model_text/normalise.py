"""Model text made readable for display and comparable for analysis.

Two views of one string:

- `for_display`: what the reader may see. LaTeX that a JSON decoder turned into control
  characters is turned back (`\\beta` arrives as backspace + "eta"), zero-width characters and
  soft hyphens go, the many Unicode hyphens become "-". Nothing else changes (NFKC would turn
  "x²" into "x2").
- `for_analysis`: what the vocabulary check reads. On top of the display view: NFKC, combining
  marks dropped, Cyrillic/Greek/small-capital look-alikes mapped to Latin ("Сoq" is "Coq"),
  LaTeX markup stripped to its words (`\\emph{formally} verified`, `C\\-oq`, `\\textcolor{red}{Co}q`),
  spaces squeezed, lower case. Stdlib only: every layer may use it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

# --- control characters a JSON decoder made out of LaTeX ------------------------------------------
# Never meant as themselves in model text: always LaTeX before a letter (\beta, \frac, \vec, \alpha).
_ALWAYS = {"\b": "b", "\f": "f", "\v": "v", "\a": "a"}
# Tab and carriage return are real characters too, so only a following macro name restores them.
_T_MACROS = frozenset(
    """tau theta times to top tilde tfrac tbinom tan tanh triangle triangleq triangleleft triangleright
    therefore textstyle tiny tt today text textbf textit textrm textsf texttt textsc textnormal textup
    textsl textmd textcolor textwidth""".split()
)
_R_MACROS = frozenset(
    """rho right rightarrow rightharpoonup rangle rfloor rceil rbrace rbrack rvert rVert ref rm rtimes
    restriction rule raggedright raisebox""".split()
)
# A newline before these is LaTeX only inside inline math ("$\nu$" decoded as "$" NL "u$").
_N_MACROS = frozenset("nu neq ne nabla neg not notin ni nleq ngeq nmid nolimits nexists newline".split())
_LETTERS = re.compile(r"[A-Za-z]+")
_CONTROL_BEFORE_LETTER = re.compile(r"[\b\f\v\a\t\r\n](?=[A-Za-z])")


def _odd_dollars_before(text: str, pos: int) -> bool:
    start = text.rfind("\n\n", 0, pos)
    return len(re.findall(r"(?<!\\)\$", text[start + 1 : pos])) % 2 == 1


def _restore_one(text: str, m: re.Match[str]) -> str | None:
    ch = m.group(0)
    run = _LETTERS.match(text, m.end())
    name = run.group(0) if run else ""
    if ch in _ALWAYS:
        return "\\" + _ALWAYS[ch]
    if ch == "\t":
        line_start = text.rfind("\n", 0, m.start()) + 1
        indent = not text[line_start : m.start()].strip()
        full = "t" + name
        if full in _T_MACROS and not (indent and len(full) < 5):  # a tab-indented code line stays
            return "\\t"
        return None
    if ch == "\r":
        return "\\r" if "r" + name in _R_MACROS else None
    if "n" + name in _N_MACROS and _odd_dollars_before(text, m.start()):
        return "\\n"
    return None


def restore_latex_escapes(text: str) -> str:
    """`\\b`, `\\f`, `\\v`, `\\a` before a letter turned back into the LaTeX they were; `\\t`, `\\r`
    (and a newline inside inline math) only before a macro name they begin (`\\theta`, `\\rho`)."""
    if not _CONTROL_BEFORE_LETTER.search(text):
        return text
    out: list[str] = []
    last = 0
    for m in _CONTROL_BEFORE_LETTER.finditer(text):
        new = _restore_one(text, m)
        if new is not None:
            out += [text[last : m.start()], new]
            last = m.end()
    out.append(text[last:])
    return "".join(out)


def restore_in(value: Any) -> Any:
    """restore_latex_escapes over every string of a decoded JSON value."""
    if isinstance(value, str):
        return restore_latex_escapes(value)
    if isinstance(value, list):
        return [restore_in(v) for v in value]
    if isinstance(value, dict):
        return {k: restore_in(v) for k, v in value.items()}
    return value


# --- display view ----------------------------------------------------------------------------------
_INVISIBLE = dict.fromkeys(
    map(
        ord,
        "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u200b\u200c\u200d\u200e\u200f"
        "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u3164\ufeff\uffa0",
    ),
    None,
)
_HYPHENS = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2043\ufe63\uff0d\u02d7\u2796"), "-")
_SPACES = dict.fromkeys(
    map(ord, "\u00a0\u2007\u202f\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u2009\u200a\u205f\u3000"), " "
)


def for_display(text: str) -> str:
    """Model text as it may be shown: LaTeX escapes restored, invisible characters removed,
    Unicode hyphens and spaces made plain."""
    return restore_latex_escapes(text or "").translate(_INVISIBLE).translate(_HYPHENS).translate(_SPACES)


# --- analysis view ---------------------------------------------------------------------------------
_CONFUSABLE_PAIRS = (
    # Cyrillic
    "АA аa ВB вb СC сc ЕE еe ҺH һh ІI іi ЈJ јj КK кk МM мm НH оo ОO РP рp ЅS ѕs ТT тt ХX хx УY уy "
    "ԁd ԛq ԜW ԝw ЁE ёe ӀI ӏl ЬB ьb ɡg "
    # Greek
    "ΑA αa ΒB βb ΕE εe ΖZ ζz ΗH ηn ΙI ιi ΚK κk ΜM μu ΝN νv ΟO οo ΡP ρp ΤT τt ΥY υu ΧX χx γy ϲc ϳj "
    # Latin small capitals and look-alikes
    "ᴀa ʙb ᴄc ᴅd ᴇe ɢg ʜh ɪi ᴊj ᴋk ʟl ᴍm ɴn ᴏo ᴘp ǫq ʀr ꜱs ᴛt ᴜu ᴠv ᴡw ʏy ᴢz ıi ȷj ℓl ſs"
).split()
_CONFUSABLES = {ord(pair[0]): pair[1] for pair in _CONFUSABLE_PAIRS}
# Formatting that shows its argument (dropped with no space: C\emph{o}q is "Coq").
_FORMATTING = frozenset(
    """emph textbf textit textrm textsf texttt textsc textnormal textup textsl textmd text mbox hbox fbox
    makebox underline uline mathrm mathit mathbf mathsf mathtt mathcal mathbb mathfrak mathscr boldsymbol
    operatorname relax small large Large LARGE tiny footnotesize normalsize scriptsize huge Huge bfseries
    itshape ttfamily rmfamily sffamily scshape upshape normalfont nobreak allowbreak protect unskip
    ignorespaces ensuremath smash rlap llap mathrlap mathllap leavevmode null strut displaystyle
    textstyle scriptstyle""".split()
)
# Commands whose first argument is not shown (a colour, a length).
_SKIP_FIRST = frozenset("textcolor color colorbox hspace vspace phantom hphantom vphantom raisebox rule".split())
_LETTER_MACROS = {"i": "i", "j": "j", "o": "o", "O": "O", "l": "l", "L": "L", "ae": "ae", "oe": "oe", "aa": "a"}
_KERN = re.compile(r"\\(?:kern|hskip|mkern|mskip)\s*-?[\d.]*\s*(?:pt|em|ex|mu|bp|cm|mm|in|sp)?")
_CITE = re.compile(r"\\(?:cite|citet|citep|citealt|citealp|citeauthor|citeyear|nocite)\*?(?:\[[^\]]*\])*\{[^{}]*\}")
_GROUP_ARG = re.compile(r"\s*(?:\[[^\]]*\]\s*)*\{[^{}]*\}")
_CONTROL_WORD = re.compile(r"\\([A-Za-z]+)\*?")
_CONTROL_SYMBOL = re.compile(r"\\[^A-Za-z]")
_GLUED_NAMES = re.compile(r"coq|rocq|isabelle|cvc[45]|mathlib|vampire")
_SPACED_LETTERS = re.compile(r"\b(?:[a-z0-9][ .]){2,}[a-z0-9]\b")


def _strip_control_word(m: re.Match[str], text: str) -> str:
    name = m.group(1)
    if name in _FORMATTING:
        return ""
    if name in _LETTER_MACROS:
        return _LETTER_MACROS[name]
    return f" {name} "  # an unknown macro may be shown as its source: its name counts as words


def strip_latex(text: str) -> str:
    """LaTeX markup reduced to the words a reader sees (for analysis only)."""
    text = _CITE.sub(" [cite] ", text)
    text = _KERN.sub("", text)
    for name in _SKIP_FIRST:
        text = re.sub(r"\\" + name + r"\*?" + _GROUP_ARG.pattern, "", text)
    text = re.sub(r"\\(?:footnote|footnotemark|footnotetext|marginpar|thanks)\*?(?:\[[^\]]*\])?", " ", text)
    text = _CONTROL_WORD.sub(lambda m: _strip_control_word(m, text), text)
    text = text.replace("\\\\", " ")
    text = re.sub(r"\\[ ~]", " ", text)
    text = _CONTROL_SYMBOL.sub(lambda m: m.group(0)[1] if m.group(0)[1] in "%&#$_" else "", text)
    text = text.replace("~", " ").replace("}{", "} {")
    return re.sub(r"[{}$^_]", "", text)


def fold(text: str) -> str:
    """NFKC, combining marks dropped, look-alike letters mapped to Latin."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)


def for_analysis(text: str) -> str:
    """The words of `text` as the vocabulary check reads them: folded, LaTeX stripped, lower
    case, hyphen variants as "-", whitespace squeezed."""
    text = fold(for_display(text))
    text = strip_latex(text)
    text = re.sub(r"[\u2012-\u2015\u2212]", "-", text)
    return " ".join(text.lower().split())


def glued_views(view: str) -> list[str]:
    """Extra readings of an analysis view that close spelling tricks: letters split by hyphens
    glued ("veri-fied"), single letters split by spaces or dots glued ("C o q", "Z.3")."""
    views = []
    glued = re.sub(r"(?<=[a-z])-(?=[a-z])", "", view)
    if glued != view:
        views.append(glued)
    spaced = _SPACED_LETTERS.sub(lambda m: re.sub(r"[ .]", "", m.group(0)), view)
    if spaced != view:
        views.append(spaced)
    # a tool's name split anywhere ("\\mbox{C}{oq}"): names no English word contains, all glued
    joined = re.sub(r"[^a-z0-9]+", "", view)
    hit = _GLUED_NAMES.search(joined)
    if hit:
        views.append(hit.group(0))
    return views


def mixed_script_word(text: str) -> str | None:
    """A word mixing Latin letters with letters of another script ("Сoq" with a Cyrillic С): no
    honest sentence needs one, so it is reported (after folding it would read as Latin)."""
    for word in re.findall(r"[^\W\d_]+", unicodedata.normalize("NFKC", text)):
        scripts = [unicodedata.name(ch, "?").split(" ")[0] for ch in word]
        # "μi" or "Δx" is notation; a word with two Latin letters and a foreign one is a disguise
        if scripts.count("LATIN") >= 2 and len(set(scripts)) > 1:
            return word
    return None
