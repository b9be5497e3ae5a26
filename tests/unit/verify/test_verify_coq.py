"""coq_check with the real coqc (skips without it; fails under EUREKACLAW_REQUIRE_TOOLS=1),
plus the token scan and report parser, which need no Coq."""

from __future__ import annotations

import pytest
from toolreq import require_tool

from eurekaclaw.verify import coq_check
from eurekaclaw.verify.coq import COQ, COQ_ALLOWED_AXIOMS, _parse_gate

REALS_PROOF = """Require Import Reals Psatz.
Open Scope R_scope.
(* A comment mentioning Admitted and Axiom must not trip the scan. *)
Lemma half_lt : forall x : R, 0 < x -> x / 2 < x.
Proof. intros x Hx. lra. Qed.
"""


@pytest.fixture
def coqc() -> str:
    return require_tool("coqc")


def test_correct_reals_proof_passes(coqc: str) -> None:
    result = coq_check(REALS_PROOF, timeout_s=120)
    assert result.verdict == "passed", result.detail
    assert result.checker == "coq" and result.version
    assert "half_lt" in result.detail
    assert "ClassicalDedekindReals.sig_forall_dec" in result.detail  # Reals' own axioms are allowed


def test_wrong_proof_fails_with_compiler_message(coqc: str) -> None:
    wrong = REALS_PROOF.replace("x / 2 < x", "x < x / 2")
    result = coq_check(wrong, timeout_s=120)
    assert result.verdict == "failed"
    assert "Error" in result.detail and "line 5" in result.detail
    assert "/tmp" not in result.detail  # temp paths are tidied away


@pytest.mark.parametrize(
    ("source", "word"),
    [
        (REALS_PROOF.replace("lra. Qed.", "Admitted."), "Admitted"),
        (REALS_PROOF.replace("lra. Qed.", "admit. Qed."), "admit"),
        ("Axiom cheat : forall P : Prop, P.\nLemma one_two : 1 = 2. Proof. apply cheat. Qed.\n", "Axiom"),
        ("Parameter p : 1 = 2.\nLemma one_two : 1 = 2. Proof. exact p. Qed.\n", "Parameter"),
        ("Hypothesis h : False.\nLemma one_two : 1 = 2. Proof. destruct h. Qed.\n", "Hypothesis outside a Section"),
        ("Unset Guard Checking.\nLemma t : True. Proof. exact I. Qed.\n", "disabled kernel check"),
        ('Redirect "out" Print nat.\nLemma t : True. Proof. exact I. Qed.\n', "Redirect"),
    ],
)
def test_forbidden_sources_are_rejected_before_compiling(source: str, word: str) -> None:
    result = coq_check(source)
    if result.verdict == "no_checker":
        pytest.skip("coqc is not on PATH")
    assert result.verdict == "failed" and word in result.detail and "before compiling" in result.detail


def test_axiom_from_the_library_fails_the_gate_even_with_a_forged_report(coqc: str) -> None:
    source = """Require Import ProofIrrelevance.
Goal True. idtac "Closed under the global context". exact I. Qed.
Lemma pi_eq : forall (P : Prop) (p q : P), p = q.
Proof. intros. apply proof_irrelevance. Qed.
"""
    result = coq_check(source, timeout_s=120)
    assert result.verdict == "failed"
    assert "ProofIrrelevance.proof_irrelevance" in result.detail


def test_section_hypotheses_are_premises_not_axioms(coqc: str) -> None:
    source = "Section S.\nHypothesis h : 1 = 1.\nLemma use_h : 1 = 1. Proof. exact h. Qed.\nEnd S.\n"
    assert coq_check(source, timeout_s=120).verdict == "passed"


def test_unknown_theorem_name_fails(coqc: str) -> None:
    result = coq_check("Lemma t : True. Proof. exact I. Qed.\n", theorem_name="nope", timeout_s=120)
    assert result.verdict == "failed" and "nope" in result.detail


def test_timeout_is_unknown(coqc: str) -> None:
    looping = "Lemma t : True.\nProof. repeat (assert True by exact I). exact I. Qed.\n"
    result = coq_check(looping, timeout_s=1.0)
    assert result.verdict == "unknown" and "timeout" in result.detail


def test_missing_coqc_is_no_checker(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert coq_check(REALS_PROOF).verdict == "no_checker"


# --- no Coq needed ---------------------------------------------------------------------------


def test_report_parser() -> None:
    report = """Axioms:
ClassicalDedekindReals.sig_forall_dec
  : forall P : nat -> Prop, (forall n : nat, {P n} + {~ P n}) -> {n : nat | ~ P n} + {forall n : nat, P n}
Classical_Prop.classic : forall P : Prop, P \\/ ~ P
Closed under the global context
"""
    axioms, problems = _parse_gate(report, ["a", "b"])
    assert axioms == ["ClassicalDedekindReals.sig_forall_dec", "Classical_Prop.classic"]
    assert problems == [] and set(axioms) <= COQ_ALLOWED_AXIOMS
    _, problems = _parse_gate("Axioms:\nfoo : False\nConstants relying on type-in-type:\nbar\n", ["a"])
    assert problems  # any other section fails closed
    _, problems = _parse_gate("", ["a"])
    assert problems


def test_comment_and_string_blanking_keeps_lines() -> None:
    text = COQ.blank('(* Admitted (* nested *) still comment *)\nLemma a : True.\nNotation "x" := 1. (* Axiom *)\n')
    assert "Admitted" not in text and "Axiom" not in text and text.count("\n") == 3
    assert COQ.forbidden(COQ.blank("Lemma a : True.\nProof. admit.\nQed.")) == ["admit (line 2)"]
