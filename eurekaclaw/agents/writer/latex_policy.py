"""What model-written LaTeX may and may not contain (used by sanitize.py).

Control sequences that reach files, the shell, catcodes or definitions are forbidden, as are
environments outside an allow-list. So are the paper's own macros (the level tag `\\eclevel` and
any other the paper template defines: what was checked is written by EurekaClaw, never by the
model), tables (the verification summary is ours), and the commands that print a character by its
code (`\\char67` would spell "Coq" past every check on words). Kept apart from the scanner so the
policy reads as a list.
"""

from __future__ import annotations

from eurekaclaw.model_text import is_writer_macro
from eurekaclaw.model_text.forged import TABLE_ENVS

BLOCKED_WORDS = frozenset(
    """
    input include includeonly endinput InputIfFileExists IfFileExists openin openout read
    readline write immediate closein closeout special directlua latelua luaexec luadirect
    ShellEscape catcode lccode uccode sfcode mathcode delcode csname endcsname ifcsname
    scantokens usepackage RequirePackage documentclass makeatletter makeatother verb
    includegraphics jobname primitive everypar everymath everydisplay everyhbox everyvbox
    everyjob everycr everyeof output afterassignment loop repeat iterate romannumeral font
    hypersetup href url nolinkurl hyperref bibliography bibliographystyle nocite
    tableofcontents listoffigures listoftables makeindex index glossary addcontentsline
    addtocontents maketitle title author date thanks part chapter section subsection
    subsubsection appendix label clearpage cleardoublepage pagestyle thispagestyle
    expandafter noexpand string meaning uppercase lowercase aftergroup
    ExplSyntaxOn ExplSyntaxOff obeylines obeyspaces dospecials endlinechar newlinechar
    escapechar shipout stop bye dump batchmode nonstopmode scrollmode errorstopmode
    UseName UseExpandableName ExpandArgs AddToHook AddToHookNext RemoveFromHook
    char symbol Uchar Ucharcat mathchar halign valign noalign
    """.split()
)
# Families: \pdf* primitives read files, \pgf*/\tikz*/\addplot read data files, and so on.
BLOCKED_PREFIXES = (
    "pdf",
    "pgf",
    "tikz",
    "addplot",
    "open",
    "close",
    "write",
    "read",
    "input",
    "include",
    "immediate",
    "catcode",
    "every",
    "new",
    "renew",
    "provide",
    "Declare",
    "directlua",
    "lua",
    "shell",
    "csname",
    "special",
    "scantokens",
    "verb",
    "Verb",
    "lst",
    "minted",
    "Input",
    "IfFile",
    "bibliography",
    # LaTeX's document-level definers and expl3's switches: \NewDocumentCommand defines;
    # \ExplSyntaxOn and \ProvidesExplFile make `_` and `:` letters, so \iow_open:Nn is one name.
    "New",
    "Renew",
    "Provide",
    "Expl",
    "UseHook",
    "tracing",
)
# expl3 modules that reach files, the shell, catcodes or arbitrary control sequences. Their
# functions are spelled \<module>_<name>:<signature>; with `_` a subscript (its normal catcode)
# such a token is harmless, but the whole name is refused all the same, in case a catcode
# change got through some other way. Only these modules: `\int_0^1` and `\mu_i` are everyday
# mathematics and stay.
EXPL3_MODULES = frozenset(
    """iow ior file sys tex cs exp use tl str token char prg msg debug regex seq prop clist
    keys bool fp box coffin hook peek quark scan kernel""".split()
)
ALLOWED_DESPITE_PREFIX = frozenset({"newline", "newpage"})
# Harmless inside a verbatim statement or proof (equation labels), though not in prose.
BLOCK_MODE_OK = frozenset({"label"})
# LaTeX's xparse-style definers: the defined name, then the argument spec and the body (and
# for environments the end code); the Copy forms take the new and the old name.
DOCUMENT_DEFINERS = frozenset(
    f"{verb}{what}"
    for verb in ("New", "Renew", "Provide", "Declare")
    for what in (
        "DocumentCommand",
        "ExpandableDocumentCommand",
        "DocumentEnvironment",
        "CommandCopy",
        "EnvironmentCopy",
    )
)
DEFINERS = (
    frozenset(
        """def gdef edef xdef let futurelet newcommand renewcommand providecommand
    DeclareRobustCommand DeclareMathOperator newenvironment renewenvironment chardef
    mathchardef countdef dimendef skipdef toksdef newtheorem newcount newdimen newskip newtoks
    newread newwrite newif""".split()
    )
    | DOCUMENT_DEFINERS
)
PREFIX_WORDS = frozenset({"global", "long", "outer", "protected"})
# Commands whose first argument is a path, a shell command or a link target: dropped with it.
DROP_ARGUMENT = frozenset(
    """input include includeonly InputIfFileExists IfFileExists openin openout write
    immediate special directlua latelua luaexec luadirect ShellEscape usepackage RequirePackage
    documentclass includegraphics href url nolinkurl hypersetup bibliography bibliographystyle
    nocite label font UseName UseExpandableName""".split()
)
# Stream commands: `\openout\s=file`, `\write\s{...}`, `\read\s to \x` lose their operands.
STREAM_COMMANDS = frozenset("openout openin write read readline closeout closein".split())

MATH_ENVS = frozenset(
    """equation equation* align align* gather gather* multline multline* flalign flalign*
    alignat alignat* displaymath math""".split()
)
AMPERSAND_ENVS = frozenset(
    """align align* flalign flalign* alignat alignat* split aligned alignedat array
    cases matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix subarray""".split()
)
ALLOWED_ENVS = (
    MATH_ENVS
    | AMPERSAND_ENVS
    | frozenset(
        """gathered subequations itemize enumerate description center flushleft flushright
        quote quotation definition remark example""".split()
    )
)
THEOREM_LIKE = frozenset("theorem lemma proposition corollary proof conjecture claim".split())
DANGEROUS_ENVS = (
    frozenset(
        """filecontents filecontents* verbatim verbatim* Verbatim lstlisting minted comment
    document tikzpicture axis thebibliography""".split()
    )
    | TABLE_ENVS
)
CITE_COMMANDS = frozenset("cite citet citep citealt citealp citeauthor citeyear citetext".split())
REF_COMMANDS = frozenset("ref eqref autoref pageref cref Cref".split())


def expl3_name_end(text: str, name: str, end: int) -> int | None:
    """When the control word `name`, ending at `end`, heads an expl3 name of a module above
    (`\\iow` + `_open:Nn`), the index just past the whole name; else None."""
    if name not in EXPL3_MODULES:
        return None
    j = end
    while j < len(text) and text[j] == "_":
        k = j + 1
        while k < len(text) and (text[k].isalpha() or text[k] == "@"):
            k += 1
        if k == j + 1:
            break
        j = k
    if j == end:
        return None
    if not text.startswith(":", j):
        return j
    k = j + 1
    while k < len(text) and text[k].isalpha():
        k += 1
    return _skip_expl3_arguments(text, k, text[j + 1 : k])


def _skip_expl3_arguments(text: str, j: int, signature: str) -> int:
    """Past the arguments an expl3 signature announces (`Nn`: a token, then a group), so the
    file name or shell command goes with the function; `p` is parameter text up to the body."""
    for kind in signature:
        while j < len(text) and text[j] in " \t\n":
            j += 1
        if j >= len(text) or kind in "wD":
            return j
        if kind == "p":
            stop = text.find("{", j)
            if stop == -1 or stop - j > 40:
                return j
            j = stop
            continue
        if text[j] == "{":
            depth = 0
            while j < len(text):
                if text[j] == "\\":
                    j += 2
                    continue
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
        elif text[j] == "\\":
            j += 1
            while j < len(text) and (text[j].isalpha() or text[j] in "_:@"):
                j += 1
            if j < len(text) and not text[j - 1].isalpha() and text[j - 1] not in "_:@":
                j += 1
        else:
            j += 1
    return j


def is_blocked(name: str) -> bool:
    if is_writer_macro(name):
        return True
    if name in ALLOWED_DESPITE_PREFIX:
        return False
    if name in BLOCKED_WORDS or name in DEFINERS or name in PREFIX_WORDS:
        return True
    return name.startswith(BLOCKED_PREFIXES)
