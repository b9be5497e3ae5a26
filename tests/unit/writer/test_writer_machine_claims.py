"""Claims of machine verification in proofs and prose are kept only where the records back them:
a careless prover's "formally verified in Coq" on a reviewed lemma becomes a bracketed note,
negations and legitimate mentions of Coq stay, and the count reaches the notes and the summary."""

from __future__ import annotations

import pytest
import writer_helpers as wh

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import build_doc
from eurekaclaw.agents.writer.machine_claims import (
    Evidence,
    Records,
    check_proof,
    check_prose_text,
    removed_count,
)
from eurekaclaw.agents.writer.render import render_tex
from eurekaclaw.agents.writer.stage import _summary
from eurekaclaw.types.artifacts import PaperOutput

REVIEWED = Evidence("reviewed", frozenset({"falsifier", "llm_review"}))
SMT = Evidence("smt", frozenset({"z3"}))
FORMAL = Evidence("formal", frozenset({"coq"}))
CITED = Evidence("cited", frozenset({"citation"}))
RECORDS = Records({"L1": CITED, "L2": REVIEWED, "L3": SMT, "L4": FORMAL}, Evidence("cited"))
NOTE = "[a claim of machine verification was removed: recorded level reviewed]"

LONG_PROOF = r"""Let $\ell = \lceil 8\log T/\Delta_i^2 \rceil$ and fix a suboptimal arm $i$.
By Lemma~\ref{lem:L1}, for every round $t$,
\begin{align}
  \Pr\bigl[\hat\mu_{i,s} \ge \mu_i + \sqrt{2\log t / s}\bigr] &\le t^{-4}, \label{eq:conc}\\
  \Pr\bigl[\hat\mu_{1,s} \le \mu_1 - \sqrt{2\log t / s}\bigr] &\le t^{-4}.
\end{align}
% the union bound over s and s' gives the factor t^2
Summing over $s, s' \le t$ and over $t$ gives $\sum_t 2t^{-2} \le \pi^2/3$. This step was formally verified in Coq.
Hence $\mathbb{E}[N_i(T)] \le \ell + 1 + \pi^2/3$, which is the claim. The whole argument has been machine-checked and Lean confirms it."""


def test_a_careless_claim_on_a_reviewed_lemma_becomes_one_note_and_the_latex_stays_intact() -> None:
    new, n = check_proof(LONG_PROOF, REVIEWED, RECORDS)
    assert n == 2  # the last sentence makes two claims: it goes once
    assert "Coq" not in new and "machine-checked" not in new and "Lean" not in new
    assert new.count(NOTE) == 2
    # everything else keeps its bytes: the environment, the label, the comment line
    assert "\\begin{align}" in new and "\\end{align}" in new and "\\label{eq:conc}" in new
    assert "% the union bound over s and s' gives the factor t^2\n" in new
    assert "Summing over $s, s' \\le t$ and over $t$ gives $\\sum_t 2t^{-2} \\le \\pi^2/3$. " + NOTE in new
    assert "Hence $\\mathbb{E}[N_i(T)] \\le \\ell + 1 + \\pi^2/3$, which is the claim. " + NOTE in new


def test_adjacent_removals_leave_one_note() -> None:
    text = "Apply the bound. Z3 confirms it. It was also machine-checked. Hence the claim. Coq accepted it."
    new, n = check_proof(text, REVIEWED, RECORDS)
    assert n == 3 and new == f"Apply the bound. {NOTE} Hence the claim. {NOTE}"


def test_claims_the_records_back_stay() -> None:
    coq = "The statement is formalised in Coq (the Coq file is attached); it was verified in Coq 8.18."
    assert check_proof(coq, FORMAL, RECORDS) == (coq, 0)
    z3 = "Expanding the square, the inequality is linear in $a_i$ and Z3 proves it. Hence the bound."
    assert check_proof(z3, SMT, RECORDS) == (z3, 0)
    numeric = "The identity was numerically checked on 4000 random points before the algebra below."
    assert check_proof(numeric, REVIEWED, RECORDS) == (numeric, 0)  # the falsifier passed for L2
    # a formal lemma was not checked by Z3: "by Z3" is a claim its records do not show
    assert check_proof("This was checked by Z3.", FORMAL, RECORDS)[1] == 1
    # cited: not machine-checked, not numerically checked
    assert check_proof("Numerically verified as well.", CITED, RECORDS)[1] == 1


def test_negations_hypotheticals_and_plain_words_are_not_claims() -> None:
    for text in (
        "We did not verify this in Coq; the argument is by hand.",
        "This step has not been checked by Z3, and no SMT solver was run.",
        "The bound could be verified in Lean in future work.",
        "We lean on Lemma~\\ref{lem:L1} and the kernel of the operator $A$ is verified to be trivial.",
        "A formal proof of the claim follows; it is not machine-checked.",
        "Without a proof assistant, we check each case by hand.",
    ):
        assert check_proof(text, REVIEWED, RECORDS) == (text, 0), text


def test_a_claim_about_another_lemma_is_judged_by_that_lemmas_record() -> None:
    text = "By Lemma~\\ref{lem:L3}, which was verified by Z3, the sum is at most $\\sqrt{KT}$."
    assert check_proof(text, REVIEWED, RECORDS) == (text, 0)
    wrong = "By Lemma~\\ref{lem:L2}, formally verified in Coq, the pulls are bounded."
    assert check_proof(wrong, SMT, RECORDS)[1] == 1


def test_prose_claims_about_all_results_must_hold_for_the_weakest() -> None:
    intro = (
        "Lemma L3 was checked by Z3 and Lemma L4 was verified in Coq, while Lemma L2 rests on review. "
        "All lemmas were formally verified. Our proofs are machine-checked end to end. "
        "The bound was numerically verified in the experiments."
    )
    new, n = check_prose_text(intro, RECORDS)
    assert n == 2
    assert new == (
        "Lemma L3 was checked by Z3 and Lemma L4 was verified in Coq, while Lemma L2 rests on review. "
        "The bound was numerically verified in the experiments."
    )
    no_lemmas = Records({}, Evidence(None))  # a numeric claim naming no lemma is the experiments'
    assert check_prose_text("The bound was numerically verified in the experiments.", no_lemmas)[1] == 0
    everything_formal = Records({"L4": FORMAL}, FORMAL)
    assert check_prose_text("All lemmas were formally verified in Coq.", everything_formal)[1] == 0


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
        "limitations": "We did not verify Lemma L2 in Coq.",
    }
    doc = build_doc(careless_theory(), plan_citations(wh.bibliography()), None, prose)
    proofs = {lem.id: lem.proof or "" for lem in doc.lemmas}
    assert "[a claim of machine verification was removed: recorded level reviewed]" in proofs["L2"]
    assert "[a claim of machine verification was removed: recorded level smt]" in proofs["L3"]  # Coq part
    assert "[a claim of machine verification was removed: recorded level cited]" in proofs["L1"]
    assert "formally verified" not in (doc.theorem_proof or "")
    assert "formally verified" not in doc.prose["abstract"] and doc.prose["abstract"].startswith("We give")
    assert doc.prose["limitations"] == "We did not verify Lemma L2 in Coq."  # a negation stays
    assert "machine-checked" not in doc.prose["title"]
    tex, _ = render_tex(doc)
    assert "formally verified in Coq" not in tex and "was removed: recorded level reviewed" in tex
    # one note per place, counted for the terminal summary
    assert removed_count(doc.notes) == 6  # L1, L2, L3, main proofs; abstract; title
    output = PaperOutput(tex_file="paper.tex", md_file="paper.md", notes=doc.notes, weakest_level=doc.weakest)
    assert "6 unsupported claim(s) of machine verification removed" in _summary(output)


def test_an_honest_paper_is_untouched() -> None:
    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), None, dict(wh.GOOD_PROSE))
    assert doc.prose == wh.GOOD_PROSE and removed_count(doc.notes) == 0
    assert all("was removed" not in (lem.proof or "") for lem in doc.lemmas)


@pytest.mark.parametrize(
    "text",
    [
        "Lemma L2 and Lemma L4 were verified in Coq.",  # L2 is reviewed: naming L4 too does not save it
        "Lemma L4 and Lemma L2 were verified in Coq.",
        "All of Lemma L4, Lemma L2 were machine-checked.",
        "An automated theorem prover verified Lemma L4 and Lemma L2.",
        "Using Lemma L4, the main theorem was verified in Coq.",  # the theorem is only cited
    ],
)
def test_every_result_a_claim_names_must_back_it(text: str) -> None:
    assert check_proof(text, FORMAL, RECORDS)[1] == 1, text


def test_results_named_past_a_contrast_are_not_the_claims_subject() -> None:
    text = "Lemma L3 was checked by Z3 and Lemma L4 was verified in Coq, while Lemma L2 rests on review."
    assert check_proof(text, REVIEWED, RECORDS) == (text, 0)
    assert check_proof("Lemma L4 and the main theorem were verified in Coq.", REVIEWED, RECORDS)[1] == 1
    both_formal = Records({"L4": FORMAL, "L5": FORMAL}, FORMAL)
    honest = "Lemma L4 and Lemma L5 were verified in Coq."
    assert check_proof(honest, REVIEWED, both_formal) == (honest, 0)


def test_results_named_in_an_earlier_clause_are_not_the_claims_subject() -> None:
    text = "The constant comes from Lemma L2, which was checked by a model review; Lemma L3 was proved by Z3."
    assert check_proof(text, REVIEWED, RECORDS) == (text, 0)
    wrong = "The constant comes from Lemma L3; Lemma L2 was proved by Z3."
    assert check_proof(wrong, REVIEWED, RECORDS)[1] == 1


@pytest.mark.parametrize(
    "text",
    [
        "More than 100 cases were verified by Z3.",
        "The Z3 solver confirms the bound.",
        "This was verified with the Coq proof assistant.",
        "This was verified by the Lean theorem prover.",
        "It was verified via Lean.",
        "The bound was verified (in Coq).",
        "The bound was verified in \\textsc{Coq}.",
        "The bound was verified in LEAN.",
        "Lean's kernel accepted the proof.",
        "The argument was checked formally.",
        "The proof is Lean-verified.",
        "The proof is Coq-verified.",
        "The proof is Z3-verified.",
        "We machine-check all steps.",
        "An automated theorem prover verified Lemma L2.",
        "A full Lean formalization is provided.",
        "The inequality holds by an SMT check.",
        "Whether $n$ is odd or even, the bound was verified in Coq.",
        "The bound is verified by SMT.",
        "Lemma L2 was checked by the solver Z3.",
    ],
)
def test_claims_in_other_words_are_caught(text: str) -> None:
    new, n = check_proof(text, REVIEWED, RECORDS)
    assert (new, n) == (NOTE, 1), text


def test_numerical_experiments_confirming_a_lemma_need_its_falsifier_check() -> None:
    assert check_proof("Numerical experiments confirm Lemma L1.", REVIEWED, RECORDS)[1] == 1  # cited
    assert check_proof("Numerical experiments confirm Lemma L2.", CITED, RECORDS)[1] == 0  # falsifier passed


@pytest.mark.parametrize(
    "text",
    [
        "Prior work [5] verified a weaker bound in Coq.",
        "Smith et al. formally verified a related bound in Isabelle.",
        "As shown by \\cite{smith}, the bound was verified in Coq.",
        "In contrast to a machine-checked proof, ours is informal.",
        "The inequality is proved by the SMT inequality (2).",
        "We compare with SMT, a notion from scheduling.",
        "Rather than by Z3, we check the bound by hand.",
    ],
)
def test_other_peoples_work_and_plain_words_stay(text: str) -> None:
    assert check_proof(text, REVIEWED, RECORDS) == (text, 0), text


@pytest.mark.parametrize(
    ("text", "proof", "prose"),
    [
        (
            "\\emph{Note. This was verified in Coq.}",
            f"\\emph{{Note. {NOTE}}}",
            "\\emph{Note. }",
        ),
        (
            "It holds \\footnote{See the appendix. The bound was verified in Coq.} for all $n$.",
            f"It holds \\footnote{{See the appendix. {NOTE}}} for all $n$.",
            "It holds \\footnote{See the appendix. } for all $n$.",
        ),
        (
            "\\textbf{Remark.} The bound was verified in Coq.",
            f"\\textbf{{Remark.}} {NOTE}",
            "\\textbf{Remark.}",
        ),
        ("It holds.\\footnote{This was verified in Coq.}", f"It holds.{NOTE}", "It holds."),
        (
            "% verified in Coq\nThe bound holds.",
            f"% {NOTE}\nThe bound holds.",
            "The bound holds.",
        ),
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
    assert new.startswith("Thus $x \\le 1$ and $y, verified in Coq. [the claim of machine verification before")
    assert "not backed by the records: recorded level reviewed]" in new and new.endswith(" Next.")


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
