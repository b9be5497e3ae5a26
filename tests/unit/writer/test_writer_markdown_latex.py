"""paper.md shows no LaTeX list or reference commands: a Markdown reader would print them raw."""

from __future__ import annotations

import writer_helpers as wh

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.markdown import _markdown_lists, render_markdown


def test_latex_lists_become_markdown_bullets() -> None:
    text = (
        "The plan was:\n\\begin{itemize}\n\\item (new) Bound the count.\n\\item[Step 2] Sum up.\n\\end{itemize}\nDone."
    )
    assert _markdown_lists(text) == "The plan was:\n\n- (new) Bound the count.\n\n- **Step 2** Sum up.\n\nDone."
    assert _markdown_lists("no lists here, x_i") == "no lists here, x_i"


def test_paper_md_has_no_raw_itemize_or_references() -> None:
    theory = wh.theory()
    prose = dict(wh.GOOD_PROSE)
    prose["introduction"] = (
        "We proceed in two steps:\n\\begin{itemize}\n\\item bound each term;\n\\item add them.\n\\end{itemize}"
    )
    for record in theory.proven_lemmas.values():
        record.proof = record.proof + " As in Lemma~\\ref{lem:L1}, the claim follows."
    md = render_markdown(build_doc(theory, plan_citations(wh.bibliography()), None, prose), [])
    assert "\\begin{itemize}" not in md and "\\item" not in md
    assert "- bound each term;" in md
    assert "\\ref{" not in md and "Lemma L1, the claim follows" in md
