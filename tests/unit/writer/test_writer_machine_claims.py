"""The paper's model text through the one door: generate, don't filter. A sentence of the model
that speaks of how something was checked goes whatever the records say (in a proof it becomes a
bracketed note, in prose it is dropped and the generated status sentence stands); the words
mathematics uses for its own steps stay; the LaTeX around a removal keeps its bytes."""

from __future__ import annotations

import pytest
import writer_helpers as wh

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.machine_claims import (
    KEPT_NOTE,
    PROOF_NOTE,
    Evidence,
    Records,
    check_proof,
    check_prose_text,
    dedupe_sections,
    removed_count,
    status_sentence,
)
from eurekaclaw.agents.writer.render import render_tex
from eurekaclaw.agents.writer.stage import _summary
from eurekaclaw.types.artifacts import PaperOutput

REVIEWED = Evidence("reviewed", frozenset({"falsifier", "llm_review"}))
SMT = Evidence("smt", frozenset({"z3"}))
FORMAL = Evidence("formal", frozenset({"coq"}))
CITED = Evidence("cited", frozenset({"citation"}))
RECORDS = Records({"L1": CITED, "L2": REVIEWED, "L3": SMT, "L4": FORMAL}, Evidence("cited"))
NOTE = PROOF_NOTE

LONG_PROOF = r"""Let $\ell = \lceil 8\log T/\Delta_i^2 \rceil$ and fix a suboptimal arm $i$.
By Lemma~\ref{lem:L1}, for every round $t$,
\begin{align}
  \Pr\bigl[\hat\mu_{i,s} \ge \mu_i + \sqrt{2\log t / s}\bigr] &\le t^{-4}, \label{eq:conc}\\
  \Pr\bigl[\hat\mu_{1,s} \le \mu_1 - \sqrt{2\log t / s}\bigr] &\le t^{-4}.
\end{align}
% the union bound over s and s' gives the factor t^2
Summing over $s, s' \le t$ and over $t$ gives $\sum_t 2t^{-2} \le \pi^2/3$. This step was formally verified in Coq.
Hence $\mathbb{E}[N_i(T)] \le \ell + 1 + \pi^2/3$, which is the claim. The whole argument has been machine-checked and Lean confirms it."""


def test_a_careless_claim_becomes_one_note_and_the_latex_stays_intact() -> None:
    new, n = check_proof(LONG_PROOF, REVIEWED, RECORDS)
    assert n == 2
    assert "Coq" not in new and "machine-checked" not in new and "Lean" not in new
    assert new.count(NOTE) == 2
    assert "\\begin{align}" in new and "\\end{align}" in new and "\\label{eq:conc}" in new
    assert "% the union bound over s and s' gives the factor t^2\n" in new
    assert "Summing over $s, s' \\le t$ and over $t$ gives $\\sum_t 2t^{-2} \\le \\pi^2/3$. " + NOTE in new


def test_adjacent_removals_leave_one_note() -> None:
    text = "Apply the bound. Z3 confirms it. It was also machine-checked. Hence the claim. Coq accepted it."
    new, n = check_proof(text, REVIEWED, RECORDS)
    assert n == 3 and new == f"Apply the bound. {NOTE} Hence the claim. {NOTE}"


def test_a_true_claim_goes_too_the_records_say_it() -> None:
    """Generate, don't filter: the tag beside a formal lemma says formal; the model does not."""
    for text in (
        "The statement is formalised in Coq; it was verified in Coq 8.18.",
        "Expanding the square, the inequality is linear in $a_i$ and Z3 proves it.",
        "Prior work [5] verified a weaker bound in Coq.",
        "We did not verify this in Coq.",
    ):
        assert check_proof(text, FORMAL, RECORDS)[1] == 1, text


@pytest.mark.parametrize(
    "text",
    [
        "One verifies that $f(x) \\ge 0$ for every $x$, as is easily checked.",
        "We prove the claim by induction on $n$; this establishes the bound.",
        "The kernel of the operator $A$ is trivial.",
        "Formally, let $X_1, \\dots, X_n$ be independent.",
        "Consider the formal power series $\\sum_k a_k z^k$.",
        "We lean on Lemma~\\ref{lem:L1}.",
        "The inequality is proved by the arithmetic inequality (2).",
    ],
)
def test_the_words_mathematics_uses_for_its_own_steps_stay_in_a_proof(text: str) -> None:
    assert check_proof(text, REVIEWED, RECORDS) == (text, 0), text


@pytest.mark.parametrize(
    "text",
    [
        "More than 100 cases were verified by Z3.",
        "This was verified with the Coq proof assistant.",
        "It was verified via Lean.",
        "The bound was verified in \\textsc{Coq}.",
        "Lean's kernel accepted the proof.",
        "The argument was checked formally.",
        "The proof is Z3-verified.",
        "We machine-check all steps.",
        "An automated theorem prover handled Lemma L2.",
        "A full Lean formalization is provided.",
        "The inequality holds by an SMT check.",
        "The goals were discharged by Vampire.",
        "The development compiles without any sorry.",
        "Mechanized in Isabelle/HOL.",
        "It is kernel\u2011checked.",
        "Z\u200b3 agrees.",
        "\u0421oq agrees.",
        "The bound is \\emph{formally} verified.",
        "A SAT solver handled it.",
        "It was certified.",
    ],
)
def test_claims_in_other_words_are_caught(text: str) -> None:
    new, n = check_proof(text, REVIEWED, RECORDS)
    assert (new, n) == (NOTE, 1), text


def careless_theory():
    state = wh.theory()
    for lid, rec in state.proven_lemmas.items():
        rec.proof += f" Lemma {lid} was formally verified in Coq and checked by Z3."
    return state


def test_build_doc_removes_them_everywhere_and_counts_them() -> None:
    prose = {
        **wh.GOOD_PROSE,
        "title": "A machine-checked regret bound for UCB1",
        "abstract": wh.GOOD_PROSE["abstract"] + " Every lemma was formally verified in Coq.",
        "limitations": "We did not verify Lemma L2 in Coq. The constants are not optimised.",
    }
    theory = careless_theory()
    doc = build_doc(theory, plan_citations(wh.bibliography()), None, prose)
    proofs = {lem.id: lem.proof or "" for lem in doc.lemmas}
    assert all(NOTE in proofs[lid] for lid in ("L1", "L2", "L3"))
    assert "formally verified" not in (doc.theorem_proof or "")
    assert "formally verified" not in doc.prose["abstract"] and doc.prose["abstract"].startswith("We give")
    # the abstract ends with the generated sentences already; other sections get the status sentence
    assert status_sentence(theory) not in doc.prose["abstract"]
    assert doc.prose["limitations"] == f"{status_sentence(theory)} The constants are not optimised."
    assert "machine-checked" not in doc.prose["title"]
    tex, _ = render_tex(doc)
    assert "formally verified in Coq" not in tex and "about how this was checked was removed" in tex
    assert removed_count(doc.notes) == 7  # L1, L2, L3, main proofs; abstract; limitations; title
    output = PaperOutput(tex_file="paper.tex", md_file="paper.md", notes=doc.notes, weakest_level=doc.weakest)
    assert "7 unsupported claim(s) of machine verification removed" in _summary(output)


def test_an_honest_paper_is_untouched() -> None:
    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), None, dict(wh.GOOD_PROSE))
    assert doc.prose == wh.GOOD_PROSE and removed_count(doc.notes) == 0
    assert all("was removed" not in (lem.proof or "") for lem in doc.lemmas)


def test_the_generated_status_sentence_survives_a_rebuild() -> None:
    """Revisions rebuild from stored prose: our own sentence is not dropped again (nor doubled)."""
    theory = wh.theory()
    records = Records.from_theory(theory)
    once, n = check_prose_text("Lemma L2 was checked by review only. The constants are loose.", records)
    assert n == 1 and once.startswith(records.sentence)
    assert check_prose_text(once, records) == (once, 0)


def test_a_sentence_repeated_across_sections_is_kept_once() -> None:
    line = "The maximum possible value of this bound is 1.5e+09."
    prose = {
        "title": "t",
        "abstract": f"We study a bound. {line}",
        "experiments": f"{line} The curves stay below it.",
        "related_work": f"Bandits are classic. {line}",
        "limitations": line,
    }
    out, n = dedupe_sections(prose)
    assert n == 3
    assert out["abstract"] == prose["abstract"] and out["experiments"] == "The curves stay below it."
    assert out["related_work"] == "Bandits are classic." and out["limitations"] == ""


@pytest.mark.parametrize(
    ("text", "proof", "prose"),
    [
        ("\\emph{Note. This was verified in Coq.}", f"\\emph{{Note. {NOTE}}}", "\\emph{Note. }"),
        (
            "It holds \\footnote{See the appendix. The bound was verified in Coq.} for all $n$.",
            f"It holds \\footnote{{See the appendix. {NOTE}}} for all $n$.",
            "It holds \\footnote{See the appendix. } for all $n$.",
        ),
        ("\\textbf{Remark.} The bound was verified in Coq.", f"\\textbf{{Remark.}} {NOTE}", "\\textbf{Remark.}"),
        ("It holds.\\footnote{This was verified in Coq.}", f"It holds.{NOTE}", "It holds."),
        ("% verified in Coq\nThe bound holds.", f"% {NOTE}\nThe bound holds.", "The bound holds."),
        ("The proof (cf. Lemma L2) was verified in Coq. Done.", f"{NOTE} Done.", "Done."),
    ],
)
def test_a_claim_inside_a_group_or_comment_goes_alone(text: str, proof: str, prose: str) -> None:
    reviewed = Records({"L2": REVIEWED, "L4": FORMAL}, REVIEWED)
    assert check_proof(text, REVIEWED, reviewed) == (proof, 1)
    assert check_prose_text(text, reviewed) == (prose, 1)


def test_a_claim_that_cannot_be_cut_out_stays_with_a_visible_note_and_is_counted() -> None:
    text = "Thus $x \\le 1$ and $y, verified in Coq. Next."  # an odd $: no part can go alone
    new, n = check_proof(text, REVIEWED, RECORDS)
    assert n == 1
    assert new == f"Thus $x \\le 1$ and $y, verified in Coq. {KEPT_NOTE} Next."


def test_build_doc_checks_the_lemma_statements_too() -> None:
    state = wh.theory()
    node = state.lemma_dag["L2"]
    node.statement += " (verified in Coq)."
    node.informal = "The pulls are bounded. This was machine-checked."
    doc = build_doc(state, plan_citations(wh.bibliography()), None, dict(wh.GOOD_PROSE))
    lem = next(lem for lem in doc.lemmas if lem.id == "L2")
    assert "Coq" not in lem.statement and NOTE in lem.statement
    assert lem.informal == f"The pulls are bounded. {NOTE}"
    assert removed_count(doc.notes) == 2
    assert any("in the statement of Lemma L2" in n for n in doc.notes)
