"""The one door for model text: LaTeX escapes restored without touching real tabs and newlines,
the analysis view undoes look-alikes and markup, and the vocabulary denies by stems."""

from __future__ import annotations

import pytest

from eurekaclaw.model_text import (
    for_analysis,
    for_display,
    judge,
    quarantine,
    restore_in,
    restore_latex_escapes,
    strip_forged,
    writer_macros,
)


def test_json_decoded_control_characters_become_latex() -> None:
    assert restore_latex_escapes("$\x08eta + \x0crac{1}{2} + \x0bec{v} + \x07lpha$") == (
        "$\\beta + \\frac{1}{2} + \\vec{v} + \\alpha$"
    )
    assert restore_latex_escapes("$\theta \rho$ and $\nu$") == "$\\theta \\rho$ and $\\nu$"
    assert restore_in({"a": ["\x08ig"], "b": 3}) == {"a": ["\\big"], "b": 3}


def test_real_tabs_and_newlines_stay() -> None:
    code = "for i in range(3):\n\tif i:\n\t\tprint(i)\n\ttotal = 0"
    assert restore_latex_escapes(code) == code
    prose = "First line.\nu is a unit vector.\nnot a macro"
    assert restore_latex_escapes(prose) == prose


def test_the_analysis_view_undoes_disguises() -> None:
    assert for_analysis("\\emph{formally} ver\\-ified in \\textsc{C}oq") == "formally verified in coq"
    assert for_analysis("kernel\u2011checked by Z\u200b3") == "kernel-checked by z3"
    assert for_analysis("\uff23\uff4f\uff51 and C\u0301oq") == "coq and coq"
    assert for_display("a\u00adb\u200bc\u2011d") == "abc-d"


@pytest.mark.parametrize(
    "text",
    [
        "It was mechanised.",
        "A certificate was produced.",
        "The solver agreed.",
        "Rocq accepted it.",
        "It is cvc5-sound.",
    ],
)
def test_stems_not_phrases(text: str) -> None:
    assert judge(text) is not None


def test_blocks_keep_the_words_of_mathematics() -> None:
    assert judge("One verifies that $f \\ge 0$, as is easily checked; we prove the claim.", mode="block") is None
    assert judge("One verifies that $f \\ge 0$.", mode="prose") is not None


def test_forged_macros_and_tables_are_removed() -> None:
    assert "eclevel" in writer_macros() and "R" not in writer_macros()
    text, removed = strip_forged("A \\eclevel[x]{proved} B \\begin{tabular}{ll} a & b \\end{tabular} C\n| a | b |\n")
    assert "eclevel" not in text and "tabular" not in text and "| a |" not in text and len(removed) == 3


def test_quarantine_keeps_paragraphs_and_reports_what_went() -> None:
    out = quarantine("Bandits matter. Z3 agrees.\n\nThe regret is small.")
    assert out.text == "Bandits matter.\n\nThe regret is small." and len(out.dropped) == 1
    assert quarantine("Nothing to see.").changed is False


def test_memory_texts_keep_the_mathematicians_verbs_but_not_status_or_tools() -> None:
    from eurekaclaw.memory.text import quarantined

    assert quarantined("Check x != 0 before dividing by x.") == "Check x != 0 before dividing by x."
    assert quarantined("One verifies the base case n = 1 first.") == "One verifies the base case n = 1 first."
    assert quarantined("This bound is established; reuse it as a lemma.") == ""
    assert quarantined("It was formally verified in Coq.") == ""
    assert quarantined("Z3 handles it.") == ""
