"""The paper's theorem block comes from theory_view: the checked root claim is the theorem (the
model's prose beside it "in words"), a self-reviewed result is a Claim with its own tag, a
narrower claim carries the generated scope sentence, a failed one is a Conjecture."""

from __future__ import annotations

import re

import pytest
import writer_helpers as wh
from surface_kit import PROSE, SCOPE_SENTENCE, theory_of

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.markdown import render_markdown
from eurekaclaw.agents.writer.render import render_tex


def paper(kind: str) -> tuple[str, str]:
    doc = build_doc(theory_of(kind), plan_citations(wh.bibliography()), None, dict(wh.GOOD_PROSE))
    tex, _ = render_tex(doc)
    return tex, render_markdown(doc)


def env_body(tex: str, env: str) -> str:
    return tex.split(f"\\begin{{{env}}}", 1)[1].split(f"\\end{{{env}}}", 1)[0]


def test_the_theorem_block_is_the_rendered_claim_and_the_prose_is_in_words() -> None:
    tex, md = paper("proved")
    body = env_body(tex, "theorem")
    assert "x \\geq 1" in body or "x \\ge 1" in body  # the claim's assumption is in the theorem itself
    assert PROSE not in body
    assert "In words (the model's statement):" in tex
    words = tex.split("In words (the model's statement):", 1)[1][:400]
    assert PROSE in words
    assert re.search(r"\\begin\{theorem\}\[\\eclevel\{proved; weakest level: smt \(z3 4\.13\.0\)\}\]", tex)
    assert "*In words (the model's statement):* " + PROSE in md
    assert "**Theorem** `[proved; weakest level: smt (z3 4.13.0)]`" in md


@pytest.mark.parametrize("kind", ["self_reviewed", "old_self_review"])
def test_self_reviewed_is_a_claim_never_a_proved_theorem(kind: str) -> None:
    tex, md = paper(kind)
    assert "\\begin{theorem}" not in tex and "\\begin{claim}" in tex
    head = re.search(r"\\begin\{claim\}\[\\eclevel\{([^}]*)\}\]", tex)
    assert head and head.group(1).startswith("self-reviewed; weakest level: reviewed (self-review")
    abstract = env_body(tex, "abstract")
    assert "self-review" in abstract and "not as a proved theorem" in abstract
    assert "The main theorem was proved" not in abstract
    assert "review-llm" in tex  # how to get `proved`
    assert "| Main claim (self-reviewed) | self-reviewed | reviewed |" in md
    assert "**Claim** `[self-reviewed; weakest level: reviewed (self-review" in md
    assert "Proof of Claim~\\ref{thm:main}" in tex


def test_narrower_claim_says_the_statement_was_not_proved() -> None:
    tex, md = paper("narrower")
    assert re.search(r"\\begin\{theorem\}\[\\eclevel\{narrower claim proved; weakest level", tex)
    assert (
        "\\textbf{Scope.} Proved for x ≥ 1; the statement asked for every real x. The statement itself was not proved."
        in tex
    )
    abstract = env_body(tex, "abstract")
    assert SCOPE_SENTENCE in abstract and "The statement itself was not proved." in abstract
    assert "**Scope.** Proved for x ≥ 1" in md


@pytest.mark.parametrize("kind", ["contradicted", "refuted", "capped"])
def test_failed_results_are_conjectures(kind: str) -> None:
    tex, md = paper(kind)
    assert "\\begin{theorem}" not in tex and "\\begin{claim}" not in tex
    head = re.search(r"\\begin\{conjecture\}\[\\eclevel\{([^}]*)\}\]", tex)
    assert head and head.group(1).startswith("not proved: ")
    assert "Proof of Theorem" not in tex
    assert "**Theorem**" not in md
