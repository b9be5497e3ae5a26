"""coq_check_claim with the real coqc (skips without it; fails under EUREKACLAW_REQUIRE_TOOLS=1):
the statement comes from the claim, the model only supplies the proof — and none of the tricks
a model could play gets a FALSE claim to pass. The report parser needs no Coq."""

from __future__ import annotations

import pytest
from toolreq import require_tool, tools_required

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import coq_check_claim
from eurekaclaw.verify.coq import COQ_ALLOWED_AXIOMS, _parse_gate, _strip_script, coq_files

POS_X = ClaimVariable(name="x", domain="positive")
HALF = Claim(variables=[POS_X], conclusion="x/2 < x")
FALSE = Claim(variables=[POS_X], conclusion="x < x/2")  # nothing may ever prove this
STATEMENT = "forall (x : R),\n  0 < x ->\n  x / 2 < x"


@pytest.fixture(scope="module")
def coqc() -> str:
    return require_tool("coqc")


def test_correct_proof_passes_and_names_the_statement(coqc: str) -> None:
    helpers = (
        '(* a helper; "Admitted" and Axiom are only words here: "*)" *)\nLemma two_pos : 0 < 2.\nProof. lra. Qed.\n'
    )
    script = 'intros x Hx. (* "lra" closes it *) pose proof two_pos. lra.'
    result = coq_check_claim(HALF, script, helpers=helpers, timeout_s=120)
    assert result.verdict == "passed", result.detail
    assert result.checker == "coq" and result.version
    assert result.detail.startswith(f"coqc checked the generated statement {STATEMENT}; axioms used")
    assert "ClassicalDedekindReals.sig_forall_dec" in result.detail  # Reals' own axioms are allowed


def test_wrong_proof_fails_with_located_compiler_message(coqc: str) -> None:
    result = coq_check_claim(FALSE, "intros x Hx.\nlra.", timeout_s=120)
    assert result.verdict == "failed"
    assert "Error" in result.detail and "line 9" in result.detail
    assert "your script from line 8" in result.detail  # where the model's text sits in the file
    assert "/tmp" not in result.detail  # temp paths are tidied away


GATE = "the proof does not prove the generated statement"
FALSE_LE = Claim(variables=[POS_X], conclusion="x <= x/2")
FALSE_SQRT = Claim(variables=[POS_X], conclusion="sqrt(x) >= x + 1/2")  # false at x = 4


@pytest.mark.parametrize(
    ("claim", "helpers", "script", "why"),
    [
        # notations cannot change what the checked statement says: the proof compiles, the gate
        # (which never imports the proof) sees a theorem about something else
        (FALSE_LE, 'Local Notation "x <= y" := True : R_scope.', "intros x Hx. exact I.", GATE),
        (
            FALSE,
            'Notation "x < y" := (x = x) : R_scope.\nDefinition eureka_target : Prop := forall x : R, 0 < x -> x = x.\n'
            "Definition eureka_statement : Prop := forall x : R, 0 < x -> x = x.",
            "intros x Hx. reflexivity.",
            GATE,
        ),
        # nor can redefinitions of what it refers to
        (FALSE_SQRT, "Definition sqrt (x : R) : R := x + 1.", "intros x Hx. unfold sqrt. lra.", GATE),
        (
            FALSE,
            'Definition Rdiv (a b : R) : R := a + 1.\nInfix "/" := Rdiv : R_scope.',
            "intros x Hx. unfold Rdiv. lra.",
            GATE,
        ),
        (FALSE, "Definition R := nat.", "intros x Hx. lia.", "coqc rejected the proof"),
        # an open Section whose hypothesis the theorem would use
        (FALSE, "Section S.\nHypothesis cheat : False.", "destruct cheat.", "needs to be closed"),
        # opacity and strategy only change what tactics may unfold
        (FALSE, "Global Opaque Rlt Rdiv.\nStrategy expand [Rinv].", "intros x Hx. lra.", "coqc rejected the proof"),
    ],
    ids=[
        "local-notation-le",
        "shadowed-names",
        "redefined-sqrt",
        "redefined-division",
        "redefined-R",
        "open-section",
        "opaque-strategy",
    ],
)
def test_tricks_do_not_prove_a_false_claim(coqc: str, claim: Claim, helpers: str, script: str, why: str) -> None:
    result = coq_check_claim(claim, script, helpers=helpers, timeout_s=120)
    assert result.verdict == "failed" and why in result.detail, result.detail


def test_honest_helpers_with_implicit_arguments_pass(coqc: str) -> None:
    """`Set Implicit Arguments` (with maximal insertion) in the helpers makes the gate's theorem's
    variable `n` implicit; `exact Eureka.EurekaProof.eureka_claim` would insert an evar for it and
    fail. The gate applies it with every argument explicit (`exact (@...)`), so it links."""
    claim = Claim(variables=[ClaimVariable(name="n", domain="natural", low=1)], conclusion="1/n <= 1")
    helpers = "Set Implicit Arguments.\nSet Maximal Implicit Insertion."
    script = "intros n Hn. apply le_INR in Hn. simpl in Hn. unfold Rdiv. rewrite Rmult_1_l, <- Rinv_1.\n"
    script += "apply Rinv_le_contravar; lra."
    result = coq_check_claim(claim, script, helpers=helpers, timeout_s=120)
    assert result.verdict == "passed", result.detail


def test_coqchk_rechecks_a_passed_proof_where_installed(coqc: str) -> None:
    import shutil

    result = coq_check_claim(HALF, "intros x Hx. lra.", timeout_s=120)
    assert result.verdict == "passed", result.detail
    if shutil.which("coqchk"):
        assert result.rechecked_by == f"coqchk {result.version}" and "coqchk" in result.detail
    else:
        assert result.rechecked_by is None and "coqchk was not run" in result.detail


def test_without_coqchk_formal_stays_possible_and_says_so(coqc: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from eurekaclaw.verify import coq as coq_module

    monkeypatch.setattr(coq_module, "_coqchk", lambda: None)
    result = coq_check_claim(HALF, "intros x Hx. lra.", timeout_s=120)
    assert result.verdict == "passed" and result.rechecked_by is None
    assert result.detail.endswith("coqchk was not run (not installed): the proof rests on coqc alone")


def test_coqchk_summary_parser() -> None:
    from eurekaclaw.verify.coq import _parse_coqchk

    clean = (
        "\nCONTEXT SUMMARY\n===============\n\n* Theory: Set is predicative\n  \n* Axioms:\n    Coq.Logic.X.y\n  \n"
        "* Constants/Inductives relying on type-in-type: <none>\n  \n"
        "* Constants/Inductives relying on unsafe (co)fixpoints: <none>\n  \n"
        "* Inductives whose positivity is assumed: <none>\n"
    )
    assert _parse_coqchk(clean) == []
    unsafe = clean.replace("unsafe (co)fixpoints: <none>", "unsafe (co)fixpoints:\n    Eureka.EurekaProof.f")
    assert any("Eureka.EurekaProof.f" in p for p in _parse_coqchk(unsafe))
    assert _parse_coqchk(clean.replace("Set is predicative", "Set is impredicative"))
    assert _parse_coqchk("")  # no summary at all fails closed


def test_printing_options_in_the_proof_cannot_forge_the_report(coqc: str) -> None:
    helpers = "Global Set Printing All.\nGlobal Set Printing Width 5.\nGlobal Unset Printing Notations."
    result = coq_check_claim(HALF, "intros x Hx. lra.", helpers=helpers, timeout_s=120)
    assert result.verdict == "passed", result.detail
    assert "FunctionalExtensionality.functional_extensionality_dep" in result.detail


def test_axiom_from_a_library_fails_the_gate(coqc: str) -> None:
    helpers = "Require Import Coq.Logic.ProofIrrelevance."
    result = coq_check_claim(
        HALF, "pose proof proof_irrelevance as PI_. intros x Hx. lra.", helpers=helpers, timeout_s=120
    )
    assert result.verdict == "failed"
    assert "outside the allow-list: ProofIrrelevance.proof_irrelevance" in result.detail


@pytest.mark.parametrize(
    ("helpers", "script", "word"),
    [
        ("", "intros x Hx. admit.", "admit"),
        ("", "Admitted.", "Admitted"),
        ("Axiom cheat : forall P : Prop, P.", "apply cheat.", "Axiom"),
        ("Parameter p : False.", "destruct p.", "Parameter"),
        ("Hypothesis h : False.", "destruct h.", "Hypothesis outside a Section"),
        ("", "intros x Hx. lra. Qed.\nTheorem eureka_claim' : True. Proof. exact I.", "not closed by Qed"),
        ("", "exact I. Defined.\nLemma again : True. Proof.", "not closed by Qed"),
        ("", "intros x Hx. lra. Abort.", "ends the proof"),
        ("Module M.\nTheorem eureka_claim : True. Proof. exact I. Qed.\nEnd M.", "lra.", "Module"),
        ('(* " *) " *) Load evil.', "lra.", "Load"),
        ("Require Import Eureka.EurekaStatement.", "lra.", "Require of Eureka.EurekaStatement"),
        ("From Ltac2 Require Import Ltac2.", "lra.", "From Ltac2 Require"),
        ("", "(* never closed", "unterminated comment"),
        ("Unset Guard Checking.", "lra.", "disabled kernel check"),
        ("Fixpoint f (n : nat) : nat := 0.", "lra.", "Fixpoint"),
        ("", "intros. change_no_check False. lra.", "_no_check"),
        ("Lemma l : True.\nProof. exact I.", "lra.", "not closed by Qed"),
    ],
)
def test_forbidden_proofs_are_rejected_before_compiling(helpers: str, script: str, word: str) -> None:
    if "Require" in word:
        require_tool("coqc")  # the stdlib allow-list reads the installation
    result = coq_check_claim(FALSE, script, helpers=helpers)
    assert result.verdict == "failed" and "before compiling" in result.detail
    assert word in result.detail, result.detail


def test_untranslatable_claim_is_skipped(coqc: str) -> None:
    claim = Claim(variables=[ClaimVariable(name="n", domain="natural")], conclusion="binomial(n, 2) >= 0")
    result = coq_check_claim(claim, "intros. lia.")
    assert result.verdict == "skipped" and result.detail.startswith("the claim has no Coq translation: ")
    assert coq_check_claim(Claim(conclusion="y > 0"), "lra.").verdict == "error"


def test_timeout_is_unknown(coqc: str) -> None:
    result = coq_check_claim(HALF, "repeat (assert True by exact I).", timeout_s=1.0)
    assert result.verdict == "unknown" and "timeout" in result.detail


def test_missing_coqc_is_no_checker(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert coq_check_claim(HALF, "lra.").verdict == "no_checker"


# --- no Coq needed ---------------------------------------------------------------------------


def test_files_put_the_statement_in_our_files_and_the_proof_in_its_own() -> None:
    job = coq_files(STATEMENT, "Lemma h : True. Proof. exact I. Qed.", "intros x Hx. lra.")
    statement, proof, gate = job.files.values()
    assert "Definition eureka_statement : Prop :=\n  forall (x : R)," in statement and "Lemma h" not in statement
    assert proof.index("Lemma h") < proof.index("Theorem eureka_claim :\n  forall (x : R),") < proof.index("lra.")
    assert proof.rstrip().endswith("intros x Hx. lra.\nQed.")
    # the target is bound before the model's library is loaded, which is never imported
    assert gate.index("Definition eureka_target") < gate.index("Require Eureka.EurekaProof.")
    assert "Import" not in gate and "exact (@Eureka.EurekaProof.eureka_claim)" in gate
    assert gate.rstrip().endswith("Print Assumptions eureka_checked.")


def test_script_is_stripped_of_our_own_proof_and_qed() -> None:
    assert _strip_script("Proof.\n intros. lra.\nQed.") == "intros. lra."
    assert _strip_script("intros. lra. Defined.") == "intros. lra."
    assert _strip_script("intros. lra. Qed. Lemma x : True. Proof. exact I. Qed.").count("Qed") == 1


def test_report_parser() -> None:
    report = """Axioms:
ClassicalDedekindReals.sig_forall_dec
  : forall P : nat -> Prop, (forall n : nat, {P n} + {~ P n}) -> {n : nat | ~ P n} + {forall n : nat, P n}
Classical_Prop.classic : forall P : Prop, P \\/ ~ P
"""
    axioms, problems = _parse_gate(report)
    assert axioms == ["ClassicalDedekindReals.sig_forall_dec", "Classical_Prop.classic"]
    assert problems == [] and set(axioms) <= COQ_ALLOWED_AXIOMS
    assert _parse_gate("Closed under the global context\n") == ([], [])
    _, problems = _parse_gate("Axioms:\nfoo : False\nConstants relying on type-in-type:\nbar\n")
    assert problems  # any other section fails closed
    _, problems = _parse_gate("")
    assert problems
    _, problems = _parse_gate("Closed under the global context\nClosed under the global context\n")
    assert problems  # exactly one report


def test_coqc_runs_in_the_sandbox_and_cannot_write_outside(tmp_path):
    """A `Redirect` that got past the scan could not land outside the work dir: coqc runs in
    the bubblewrap sandbox where only its temporary directory is writable."""
    require_tool("coqc")
    from eurekaclaw import sandbox
    from eurekaclaw.verify import coq as coq_module
    from eurekaclaw.verify.formal import run_tool

    if not sandbox.status().available:
        if tools_required():
            pytest.fail(f"required tool missing: {sandbox.status().reason}")
        pytest.skip(sandbox.status().reason)
    outside = tmp_path / "escaped"
    with sandbox.sandbox_workdir() as work:
        (work / "A.v").write_text(f'Redirect "inside" Print nat.\nRedirect "{outside}" Print nat.\n')
        run = run_tool(
            ["coqc", "-q", "A.v"],
            cwd=work,
            timeout_s=60,
            env=coq_module._environment(work),
            sandbox_paths=coq_module._sandbox_paths(),
        )
        assert (work / "inside.out").exists(), run.output  # coqc did run and could write its own dir
    assert run.returncode != 0 and "escaped" in run.output  # the outside path does not exist in there
    assert not list(tmp_path.glob("escaped*")), run.output


def test_the_prompts_example_answer_passes(coqc: str) -> None:
    """The example answer the prover's prompt shows is a correct one."""
    import re
    from pathlib import Path

    import eurekaclaw

    template = (Path(eurekaclaw.__file__).parent / "templates" / "prompts" / "theory_prover.j2").read_text()
    helpers = re.search(r'formal_helpers: "(.*)"', template).group(1).replace("\\n", "\n")  # type: ignore[union-attr]
    script = re.search(r'formal_proof: "(.*)"', template).group(1)  # type: ignore[union-attr]
    claim = Claim(variables=[ClaimVariable(name="x", domain="interval", low=0, high=1)], conclusion="x^2 <= x")
    result = coq_check_claim(claim, script, helpers=helpers, timeout_s=120)
    assert result.verdict == "passed", result.detail
