"""What model-written LaTeX may and may not contain (used by sanitize.py).

Control sequences that reach files, the shell, catcodes or definitions are forbidden, as are
environments outside an allow-list. Kept apart from the scanner so the policy reads as a list.
"""

from __future__ import annotations

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
    """.split()
)
# Families: \pdf* primitives read files, \pgf*/\tikz*/\addplot read data files, and so on.
BLOCKED_PREFIXES = (
    "pdf", "pgf", "tikz", "addplot", "open", "close", "write", "read", "input", "include",
    "immediate", "catcode", "every", "new", "renew", "provide", "Declare", "directlua", "lua",
    "shell", "csname", "special", "scantokens", "verb", "Verb", "lst", "minted", "Input",
    "IfFile", "bibliography",
)
ALLOWED_DESPITE_PREFIX = frozenset({"newline", "newpage"})
# Harmless inside a verbatim statement or proof (equation labels), though not in prose.
BLOCK_MODE_OK = frozenset({"label"})
DEFINERS = frozenset(
    """def gdef edef xdef let futurelet newcommand renewcommand providecommand
    DeclareRobustCommand DeclareMathOperator newenvironment renewenvironment chardef
    mathchardef countdef dimendef skipdef toksdef newtheorem newcount newdimen newskip newtoks
    newread newwrite newif""".split()
)
PREFIX_WORDS = frozenset({"global", "long", "outer", "protected"})
# Commands whose first argument is a path, a shell command or a link target: dropped with it.
DROP_ARGUMENT = frozenset(
    """input include includeonly InputIfFileExists IfFileExists openin openout write
    immediate special directlua latelua luaexec luadirect ShellEscape usepackage RequirePackage
    documentclass includegraphics href url nolinkurl hypersetup bibliography bibliographystyle
    nocite label font""".split()
)
# Stream commands: `\openout\s=file`, `\write\s{...}`, `\read\s to \x` lose their operands.
STREAM_COMMANDS = frozenset("openout openin write read readline closeout closein".split())

MATH_ENVS = frozenset(
    """equation equation* align align* gather gather* multline multline* flalign flalign*
    alignat alignat* displaymath math""".split()
)
AMPERSAND_ENVS = frozenset(
    """align align* flalign flalign* alignat alignat* split aligned alignedat array tabular
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
THEOREM_LIKE = frozenset(
    "theorem lemma proposition corollary proof conjecture claim".split()
)
DANGEROUS_ENVS = frozenset(
    """filecontents filecontents* verbatim verbatim* Verbatim lstlisting minted comment
    document tikzpicture axis thebibliography""".split()
)
CITE_COMMANDS = frozenset(
    "cite citet citep citealt citealp citeauthor citeyear citetext".split()
)
REF_COMMANDS = frozenset("ref eqref autoref pageref cref Cref".split())


def is_blocked(name: str) -> bool:
    if name in ALLOWED_DESPITE_PREFIX:
        return False
    if name in BLOCKED_WORDS or name in DEFINERS or name in PREFIX_WORDS:
        return True
    return name.startswith(BLOCKED_PREFIXES)
