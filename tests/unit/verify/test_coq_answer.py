"""Whole-file Coq answers taken apart (verify/coq_answer.py), and the table of realistic answers
of a capable model (tests/fixtures/formal_answers/coq_answers.json) checked with the real coqc.

Before the split, 3 of the table's 15 answers were accepted (the plain scripts); whole files
failed with "Nested proofs are not allowed" or a refused `Qed`. The table test pins the count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolreq import require_tool

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify.coq_answer import RENAMED, closing_script, describe, split_coq_answer, unclosed

TABLE = json.loads((Path(__file__).parents[2] / "fixtures" / "formal_answers" / "coq_answers.json").read_text())


def test_a_plain_script_is_left_alone() -> None:
    for script in ("intros x Hx. lra.", "Proof.\n  intros x.\n  - nra.\n  { lra. }\nQed.", "intros.\n{ nra. }"):
        answer = split_coq_answer(script)
        assert not answer.changed and answer.script == script and answer.helpers == answer.requires == ""


def test_a_whole_file_becomes_requires_helpers_and_a_closing_script() -> None:
    text = (
        "Require Import Reals Psatz.\nOpen Scope R_scope.\n\n"
        "(* the key step. *)\nLemma aux (x : R) : 0 <= x ^ 2.\nProof. nra. Qed.\n\n"
        "Theorem main : forall x : R, 0 <= x ^ 2 + 1.\nProof.\n  intro x. pose proof (aux x). lra.\nQed.\n"
    )
    answer = split_coq_answer(text)
    assert answer.requires == "Require Import Reals Psatz."
    assert answer.helpers.startswith("Open Scope R_scope.") and "(* the key step. *)" in answer.helpers
    assert answer.helpers.rstrip().endswith("Qed.") and answer.theorems == ("aux", "main")
    # the last theorem is tried first, each closer must finish the goal
    assert answer.script.startswith("first [ solve [ exact (@main) ]")
    assert answer.script.index("@main") < answer.script.index("@aux") and "solve [ intros; nra ]" in answer.script
    assert "aux, main became helpers" in describe(answer)


def test_helpers_then_a_script_keeps_the_script() -> None:
    answer = split_coq_answer("Lemma h : 0 < 2.\nProof. lra. Qed.\nintros x Hx.\npose proof h.\nlra.")
    assert answer.helpers == "Lemma h : 0 < 2.\nProof. lra. Qed." and answer.theorems == ("h",)
    assert answer.script == "intros x Hx.\npose proof h.\nlra."


def test_fence_and_prose_around_it_are_dropped() -> None:
    answer = split_coq_answer("Here is the proof:\n```coq\nLemma l : True.\nProof. exact I. Qed.\n```\nDone.")
    assert answer.helpers == "Lemma l : True.\nProof. exact I. Qed." and "fence" in describe(answer)


def test_the_gate_name_is_renamed_everywhere_in_the_model_text() -> None:
    answer = split_coq_answer(
        "Theorem eureka_claim : True.\nProof. exact I. Qed.\nLemma b : True.\nProof. exact eureka_claim. Qed."
    )
    assert "eureka_claim " not in answer.helpers and answer.helpers.count(RENAMED) == 2
    assert answer.theorems == (RENAMED, "b")


def test_an_unclosed_statement_is_reported() -> None:
    answer = split_coq_answer("lra. Qed.\nTheorem other : True.\nProof. exact I.")
    assert unclosed(answer) == "other"
    assert unclosed(split_coq_answer("Lemma a : True. Proof. exact I. Defined.")) is None


def test_a_definition_in_proof_mode_is_one_block() -> None:
    answer = split_coq_answer("Definition d : nat.\nProof. exact 0%nat. Defined.\nDefinition e := d.\nintros. lra.")
    assert answer.helpers == "Definition d : nat.\nProof. exact 0%nat. Defined.\nDefinition e := d."
    assert answer.script == "intros. lra." and answer.theorems == ()


def test_admitted_outside_a_block_stays_in_the_script_for_the_scan() -> None:
    answer = split_coq_answer("Require Import Lra.\nintros. Admitted.")
    assert "Admitted" in answer.script


def test_closing_script_tries_at_most_three_theorems() -> None:
    script = closing_script(["a", "b", "c", "d"])
    assert "@d" in script and "@b" in script and "@a" not in script
    assert script.startswith("first [") and script.endswith("].")


@pytest.mark.parametrize("case", TABLE, ids=[c["id"] for c in TABLE])
def test_capable_model_answers_are_accepted(case: dict) -> None:
    """Each realistic answer is proved at `formal` (the Coquelicot one stays refused: outside
    the standard library)."""
    require_tool("coqc")
    from eurekaclaw import sandbox
    from eurekaclaw.verify.coq import coq_check_claim

    if not sandbox.status().available:
        pytest.skip(sandbox.status().reason)
    result = coq_check_claim(
        Claim(**case["claim"]), case["formal_proof"], helpers=case.get("formal_helpers", ""), timeout_s=180
    )
    if case.get("stays_rejected"):
        assert result.verdict == "failed" and "before compiling" in result.detail
    else:
        assert result.verdict == "passed", result.detail


def test_table_is_large_and_mixed() -> None:
    shapes = " ".join(c["shape"] for c in TABLE)
    assert len(TABLE) >= 12 and sum(not c.get("stays_rejected") for c in TABLE) >= 12
    for word in ("whole", "Theorem", "Lemma", "Require", "plain script", "fence", "implicit"):
        assert word in shapes, word
