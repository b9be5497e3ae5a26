"""Attacks on the formal trust base: Coq 8.16.1's known kernel bugs reached through model text.

Every attack here is refused before coqc runs, so these tests need no Coq (a refusal comes before
the check for coqc); the ones that compile something skip without coqc (tests/toolreq.py). Each
asserts the verdict is "failed" with "rejected before compiling", never "passed" (which would be
level `formal`), on claims that are FALSE or that no solver can refute.
"""

from __future__ import annotations

import pytest
from toolreq import require_tool

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify.coq import coq_check_claim
from eurekaclaw.verify.mechanical import mechanical_level

# False: x = sqrt(2) lies in [1, 2] and Z3's model for it is irrational.
SQRT2 = Claim(variables=[ClaimVariable(name="x", domain="interval", low=1, high=2)], conclusion="x^2 != 2")
# False at x = pi/2, and no falsifier or solver refutes it.
SIN = Claim(variables=[ClaimVariable(name="x")], conclusion="sin(x) < 1")

# rocq issue 20455 (guard checker, Coq 8.16 to 9.0.0): closed under the global context in 8.16.1,
# and coqchk 8.16.1 accepts it too.
GUARD_BUG = """Definition not_zero n := match n with 0%nat => False | S _ => True end.
Definition not_one n := match n with 0%nat => False | S n => not_zero n end.
Fixpoint issue (n : nat) {struct n} : not_zero n -> False.
  refine
  match n with
  | 0%nat => fun h => h
  | S subn => fun h =>
    let f (b : bool) (e : b = true) (x : nat) (Hx : not_one x) :=
      let arg := (match (if b then x else subn) with 0%nat => subn | S subsubn => subsubn end) in
      issue arg _
    in
    f true eq_refl 5%nat I
  end.
  subst b.
  destruct x; cbn in Hx.
  - now exfalso.
  - assumption.
Defined.
"""
BOOM = "Definition boom : False := issue 1 I.\n"
EXFALSO = "intros. exfalso. exact boom."


def _refused(result, *words: str) -> None:
    assert result.verdict == "failed", result
    assert result.detail.startswith("rejected before compiling"), result.detail
    for word in words:
        assert word in result.detail, result.detail
    assert mechanical_level([result]) is None  # never `formal`


def test_guard_bug_through_fixpoint_in_helpers_is_refused() -> None:
    """Attack: the published guard-checker exploit (Fixpoint ... Defined.) in formal_helpers,
    `boom : False` from it, and `exfalso. exact boom.` for the false claim x^2 != 2 on [1, 2]."""
    _refused(coq_check_claim(SQRT2, EXFALSO, helpers=GUARD_BUG + BOOM), "Fixpoint", "in the helpers")


def test_guard_bug_through_the_fix_tactic_is_refused() -> None:
    """Attack: the same recursion built with the `fix` tactic inside a helper's proof."""
    helpers = (
        "Definition not_zero n := match n with 0%nat => False | S _ => True end.\n"
        "Lemma issue : forall n : nat, not_zero n -> False.\nProof.\n  fix IH 1.\n  intros n h. apply (IH n h).\n"
        "Defined.\n" + BOOM
    )
    _refused(coq_check_claim(SIN, EXFALSO, helpers=helpers), "fix/cofix")


def test_fix_tactic_in_the_script_is_refused() -> None:
    """Attack: the `fix` tactic directly in the proof script of the gate's theorem."""
    _refused(coq_check_claim(SIN, "fix f 1. intros x. apply f."), "fix/cofix", "in the script")


def test_fix_term_in_the_script_is_refused() -> None:
    """Attack: a `fix` term (not a command) handed to `refine`."""
    script = "intros x. exfalso. refine ((fix f (n : nat) : False := f n) 0%nat)."
    _refused(coq_check_claim(SIN, script), "fix/cofix")


def test_vm_cache_bug_change_no_check_then_vm_compute_is_refused() -> None:
    """Attack: rocq issue 16957 (fixed in 8.17): `change_no_check 0 with 1` on a section
    variable, then `vm_compute` reads the poisoned VM cache."""
    helpers = (
        "Section S.\nVariable n : nat.\nLet m := n.\n"
        "Definition bad : m = 0%nat -> False := ltac:(intros H; change_no_check (0%nat = 1%nat) in H; "
        "vm_compute in H; discriminate).\nEnd S.\n"
    )
    _refused(coq_check_claim(SIN, "intros x. exfalso. exact (bad 0 eq_refl).", helpers=helpers), "_no_check")
    assert "rocq issue 16957" in coq_check_claim(SIN, "exact I.", helpers=helpers).detail


@pytest.mark.parametrize(
    "tactic",
    ["exact_no_check I", "vm_cast_no_check I", "native_cast_no_check I", "change_no_check True", "refine_no_check I"],
)
def test_every_no_check_tactic_is_refused(tactic: str) -> None:
    """Attack: any unchecked tactic, the generic `*_no_check` pattern included."""
    _refused(coq_check_claim(SIN, f"intros x. {tactic}."), "_no_check")


@pytest.mark.parametrize(
    ("helpers", "word"),
    [
        ("Fix(* hidden *)point f (n : nat) : False := f n.", None),  # not a Fixpoint for coqc either
        ("Local (* a comment *) Fixpoint f (n : nat) : False := f n.", "Fixpoint"),
        ("#[local] Fixpoint f (n : nat) : False := f n.", "Fixpoint"),
        ("Global\nFixpoint\nf (n : nat) : False := f n.", "Fixpoint"),
        ("Notation \"'loop'\" := (fix f (n : nat) : False := f n).", "fix/cofix"),
        ('Tactic Notation "go" := fix f 1.', "fix/cofix"),
        ("Definition g := let fix f (n : nat) : nat := n in f.", "fix/cofix"),
        ("#[local] Instance i : Inhabited False := {}.", "Instance"),
        ("Existing Instance foo.", "Instance"),
        ("Inductive bad : Prop := c : (bad -> False) -> bad.", "Inductive"),
        ("#[bypass_check(positivity)] Inductive bad : Prop := c : (bad -> False) -> bad.", "bypass_check"),
        ("CoFixpoint s : nat := s.", "Fixpoint"),
        ("Definition s := cofix f : nat := f.", "fix/cofix"),
        ("Record r := { a : nat }.", "Record"),
        ("Structure r := { a : nat }.", "Structure"),
        ("Variant v := A | B.", "Variant"),
        ("Class C := { c : nat }.", "Class"),
        ("Canonical Structure foo.", "Canonical"),
        ("Program Definition f : nat := _.", "Program"),
        ("#[program] Definition f : nat := _.", "Program"),
        ("Function f (n : nat) {measure n} : nat := 0.", "Function"),
        ("Equations f (n : nat) : nat := f n := 0.", "Equations"),
        ("Scheme ind := Induction for nat Sort Prop.", "Scheme"),
        ("Unset Guard Checking.", "disabled kernel check"),
        ("Local Unset Positivity Checking.", "disabled kernel check"),
        ("#[local] Unset Universe Checking.", "disabled kernel check"),
        ("Set Typing Flags.", "Typing Flags"),
        ("Unset Strict Universe Declaration.", "Strict Universe"),
        ("Set Universe Polymorphism.", "universe"),
        ("Polymorphic Definition idu@{u} (A : Type@{u}) := A.", "universe"),
        ("Set Definitional UIP.", "SProp"),
        ("Set Allow StrictProp.", "SProp"),
        ("Definition s : SProp := sEmpty.", "SProp"),
        ("Set Primitive Projections.", "Primitive"),
        ("Set Native Compute Profiling.", "native compute"),
        ("Set Some Unknown Kernel Flag.", "only printing and proof-style options"),
        ("Export Set Program Mode.", "Program"),
        ("Section S. Variable h : False. Lemma l : False. Proof using. exact h. Qed. End S.", "Proof using"),
        ("Require Import Coq.Floats.PrimFloat.", "Require of"),
        ("Require Import Coq.Numbers.Cyclic.Int63.Uint63.", "Require of"),
        ("Reset Initial.", "Reset"),
    ],
)
def test_obfuscated_kernel_weakening_commands_are_refused(helpers: str, word: str | None) -> None:
    """Attack: a kernel-weakening command with comments between its tokens, prefixes,
    attributes, inside a notation or a tactic notation, or spelled as an option."""
    result = coq_check_claim(SIN, EXFALSO, helpers=helpers)
    if word is None:
        assert result.verdict != "passed"  # split by a comment it is no command for coqc either
        return
    if "Require" in word:
        require_tool("coqc")  # the stdlib allow-list reads the installation
    _refused(result, word)


@pytest.mark.parametrize(
    ("proof", "word"),
    [
        # the same attack as a whole-file answer: taken apart, its Fixpoint is still a helper
        (
            "Require Import Reals.\n"
            + GUARD_BUG
            + BOOM
            + "Theorem t : forall x : R, sin x < 1.\nProof. "
            + EXFALSO
            + " Qed.\n",
            "Fixpoint",
        ),
        ("```coq\n" + GUARD_BUG + BOOM + "```\n" + EXFALSO, "Fixpoint"),
        # a string containing the command is no command; the one after it is
        ('Check "Fixpoint". Fixpoint f (n : nat) : False := f n.', "Fixpoint"),
        ('(* " *) Fixpoint " *) intros. lra. Qed. Fixpoint f (n : nat) : False := f n.', "Fixpoint"),
    ],
    ids=["whole-file", "fenced", "after-a-string", "after-a-comment-with-quote"],
)
def test_whole_file_and_string_tricks_are_refused(proof: str, word: str) -> None:
    """Attack: the guard exploit as a whole .v file (which the gate now takes apart), inside a
    Markdown fence, or after strings and comments built to confuse a naive scanner."""
    _refused(coq_check_claim(SIN, proof), word)


def test_unclosed_model_theorem_cannot_swallow_the_gate() -> None:
    """Attack: end the gate's proof early and open a theorem that the gate's own statement would
    then be nested in."""
    result = coq_check_claim(SIN, "intros x. lra. Qed.\nTheorem eureka_claim' : True.\nProof. exact I.")
    assert result.verdict == "failed" and "not closed by Qed or Defined" in result.detail


def test_guard_exploit_would_pass_without_the_refusal(tmp_path) -> None:
    """Why the refusal exists: with coqc 8.16.1 the exploit compiles and Print Assumptions
    reports nothing, so only refusing the text keeps it from `formal`."""
    coqc = require_tool("coqc")
    import subprocess

    source = tmp_path / "Exploit.v"
    source.write_text(GUARD_BUG + BOOM + "Print Assumptions boom.\n")
    run = subprocess.run([coqc, "-q", source.name], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        pytest.skip(f"this Coq rejects the exploit (a fixed version): {run.stdout[-200:]}")
    assert "Closed under the global context" in run.stdout
