"""Compilation: log parsing, latexmk on the golden paper (checked with pdftotext), failure
detection despite exit code 0, and the repair loop."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import writer_helpers as wh
from toolreq import require_tool

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.compile import compile_tex, find_toolchain, parse_log
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.experiments import experiment_view
from eurekaclaw.agents.writer.repair import compile_with_repair

TIMEOUT = 120.0

LOG = r"""This is pdfTeX, Version 3.141592653-2.6-1.40.24
(./paper.tex
./paper.tex:57: Undefined control sequence.
l.57 The set \Rset
                   is closed.
./paper.tex:3: LaTeX Error: File `nonexistent.sty' not found.
l.3 \usepackage{nonexistent}
! Missing $ inserted.
<inserted text>
                $
l.80 a_
       1
Package natbib Warning: Citation `ghost2020' on page 1 undefined on input line 12.
LaTeX Warning: Reference `lem:none' on page 2 undefined on input line 20.
! LaTeX Error: Unicode character 中 (U+4E2D)
Package natbib Warning: There were undefined citations.
"""


def test_parse_log_finds_every_kind_of_failure() -> None:
    log = parse_log(LOG)
    assert not log.ok
    assert [(e.line, e.message) for e in log.errors][:3] == [
        (57, "Undefined control sequence."),
        (3, "LaTeX Error: File `nonexistent.sty' not found."),
        (80, "Missing $ inserted."),
    ]
    assert log.errors[0].undefined_control_sequence() == "\\Rset"
    assert log.undefined_citations == ["ghost2020"]
    assert log.undefined_references == ["lem:none"]
    assert log.missing_files == ["nonexistent.sty"]
    assert log.unicode_chars == ["中"]
    assert "undefined citations: ghost2020" in log.summary()


def test_clean_log_is_ok() -> None:
    log = parse_log(
        "This is pdfTeX\nOutput written on paper.pdf (3 pages).\nLaTeX Warning: Marginpar on page 1 moved.\n"
    )
    assert log.ok and log.summary() == ""


def _toolchain():
    require_tool("latexmk")
    require_tool("pdftotext")
    toolchain = find_toolchain()
    assert toolchain is not None and toolchain.latexmk
    return toolchain


def _pdf_text(pdf: Path) -> str:
    out = subprocess.run(["pdftotext", "-raw", str(pdf), "-"], capture_output=True, check=True, timeout=60)
    return " ".join(out.stdout.decode("utf-8", "replace").split())


async def test_golden_paper_compiles_and_pdf_shows_statement_and_tags(tmp_path: Path) -> None:
    toolchain = _toolchain()
    prose = dict(wh.GOOD_PROSE)
    # hostile prose must neither break the build nor reach the shell or the file system
    prose["introduction"] += (
        " Intro \\immediate\\write18{touch pwned-shell} \\newwrite\\f\\immediate\\openout\\f=pwned.tex "
        "\\input{/etc/hostname} \\catcode`\\^=7 ^^5cinput{/etc/hostname} done."
    )
    doc = build_doc(
        wh.theory(), plan_citations(wh.bibliography()), experiment_view(wh.experiment(), wh.FIXTURES), prose
    )
    build = tmp_path / "latex"
    outcome = await compile_with_repair(doc, build, toolchain, TIMEOUT)
    assert outcome.compiled, outcome.error
    assert outcome.actions == []  # the golden paper needs no repair
    text = _pdf_text(outcome.pdf)
    assert "the expected regret of UCB1 on a K-armed bandit with rewards in [0, 1] satisfies" in text
    assert "For every suboptimal arm i with gap" in text
    assert "verified: smt" in text and "verified: reviewed" in text and "verified: cited" in text
    assert "Verification summary" in text
    assert "Finite-time Analysis of the Multi" in text  # the bibliography
    assert "Unverified references" in text
    assert "Intro" in text and "done." in text
    assert not list(build.glob("pwned*")) and not list(tmp_path.glob("pwned*"))
    hostname = Path("/etc/hostname").read_text().strip() if Path("/etc/hostname").is_file() else ""
    if hostname:
        assert hostname not in text


async def test_undefined_citation_fails_even_with_exit_code_zero(tmp_path: Path) -> None:
    toolchain = _toolchain()
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\usepackage[numbers]{natbib}\\begin{document}\n"
        "Known \\cite{real} and unknown \\cite{ghost2020}.\n"
        "\\bibliographystyle{plainnat}\\bibliography{references}\\end{document}\n"
    )
    (tmp_path / "references.bib").write_text("@misc{real, title={{Real}}, author={A. B}, year={2020}}\n")
    result = await compile_tex(tmp_path, "paper.tex", toolchain, TIMEOUT)
    assert result.pdf is not None  # a PDF was produced ...
    assert not result.ok  # ... but the paper is not accepted
    assert result.log.undefined_citations == ["ghost2020"]
    assert "ghost2020" in result.error_text()


async def test_repair_fixes_statement_and_prose_deterministically(tmp_path: Path) -> None:
    toolchain = _toolchain()
    theory = wh.theory()
    theory.lemma_dag["L3"].statement = "For all $x$, $\\undefinedmacro{x} \\le 1$."
    prose = dict(wh.GOOD_PROSE)
    prose["preliminaries"] = "Let $\\Rset$ be the reals."
    doc = build_doc(theory, plan_citations(wh.bibliography()), None, prose)
    outcome = await compile_with_repair(doc, tmp_path / "latex", toolchain, TIMEOUT)
    assert outcome.compiled, outcome.error
    # the prose lost the unknown command; in the statement only the unknown command became
    # text, the rest is typeset (no source block)
    assert doc.prose["preliminaries"] == "Let $Rset$ be the reals."
    assert doc.source_blocks == set()
    assert doc.block_undefined["lemma:2:statement"] == {"undefinedmacro"}
    assert any("undefined command \\undefinedmacro in lemma:2:statement as text" in a for a in outcome.actions)
    assert outcome.llm_fixes == 0
    text = _pdf_text(outcome.pdf)
    assert "\\undefinedmacro" in text and "≤ 1" in text and "\\le" not in text


async def test_repair_asks_the_model_then_falls_back_to_plain_text(tmp_path: Path) -> None:
    toolchain = _toolchain()
    prose = dict(wh.GOOD_PROSE)
    prose["limitations"] = "\\item A lonely item outside any list."
    calls: list[str] = []

    async def useless_fix(field: str, text: str, error: str, lines: str) -> str | None:
        calls.append(field)
        assert "Lonely \\item" in error or "item" in lines
        return text + " (still broken)"

    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), None, prose)
    outcome = await compile_with_repair(doc, tmp_path / "latex", toolchain, TIMEOUT, llm_fix=useless_fix)
    assert outcome.compiled, outcome.error
    assert calls == ["limitations", "limitations"]  # at most two model fixes
    assert "limitations" in doc.plain_prose
    assert "lonely item outside any list" in _pdf_text(outcome.pdf)


async def test_repair_uses_a_good_model_fix(tmp_path: Path) -> None:
    toolchain = _toolchain()
    prose = dict(wh.GOOD_PROSE)
    prose["limitations"] = "\\item Only one horizon."

    async def good_fix(field: str, text: str, error: str, lines: str) -> str | None:
        return "\\begin{itemize}\\item Only one horizon.\\end{itemize}"

    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), None, prose)
    outcome = await compile_with_repair(doc, tmp_path / "latex", toolchain, TIMEOUT, llm_fix=good_fix)
    assert outcome.compiled, outcome.error
    assert outcome.llm_fixes == 1
    assert "limitations" not in doc.plain_prose
    assert "\\begin{itemize}\\item Only one horizon.\\end{itemize}" in outcome.tex


@pytest.mark.parametrize("missing", ["latexmk"])
async def test_fallback_to_pdflatex_and_bibtex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    toolchain = _toolchain()
    toolchain.latexmk = None  # as on a machine with pdflatex but without latexmk
    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), None, dict(wh.GOOD_PROSE))
    outcome = await compile_with_repair(doc, tmp_path / "latex", toolchain, TIMEOUT)
    assert outcome.compiled, outcome.error
    assert "Finite-time Analysis" in _pdf_text(outcome.pdf)  # bibtex ran
