"""The forbidden-command scan reads comments and strings the way Coq (and Lean) do: every
forbidden command, hidden behind each lexical trick, is still found; text that Coq itself skips
is not; unterminated comments and strings are rejected. A differential test asks coqc."""

from __future__ import annotations

import subprocess

import pytest
from toolreq import require_tool

from eurekaclaw.verify.coq import _forbidden
from eurekaclaw.verify.formal import LexError, blank_coq, blank_lean
from eurekaclaw.verify.lean import _forbidden as lean_forbidden

FORBIDDEN_COMMANDS = [
    ("Load x.", "Load"),
    ('Declare ML Module "evil".', "Declare"),
    ('Redirect "out" Print nat.', "Redirect"),
    ("Extraction nat.", "Extraction"),
    ("Recursive Extraction nat.", "Extraction"),
    ("Separate Extraction nat.", "Extraction"),
    ('Extract Constant plus => "x".', "Extraction"),
    ('Set Extraction Output Directory "/tmp".', "Extraction"),
    ('Cd "/tmp".', "Cd"),
    ('Add LoadPath "/tmp" as X.', "Add LoadPath"),
    ('Add Rec LoadPath "/tmp" as X.', "Add LoadPath"),
    ('Add ML Path "/tmp".', "Add LoadPath"),
    ("Drop.", "Drop"),
    ('Locate File "x.v".', "Locate File"),
    ("Axiom cheat : False.", "Axiom"),
    ("Parameter p : False.", "Parameter"),
    ("Conjecture c : False.", "Conjecture"),
    ("Lemma l : False. Admitted.", "Admitted"),
    ("Lemma l : False. Proof. admit. Qed.", "admit"),
    ("Lemma l : False. Proof. give_up. Qed.", "give_up"),
    ("Admit Obligations.", "Admit Obligations"),
    ("Primitive add := #int63_add.", "Primitive"),
    ("Register plus as num.nat.add.", "Register"),
    ("Declare Module M : T.", "Declare"),
    ("Declare Instance i : C.", "Declare"),
    ("Module M. End M.", "Module"),
    ("Include M.", "Include"),
    ("Unset Guard Checking.", "disabled kernel check"),
    ("Local Unset Universe Checking.", "disabled kernel check"),
    ("Unset Positivity Checking.", "disabled kernel check"),
    ("#[bypass_check(guard)] Fixpoint f (n : nat) : nat := f n.", "bypass_check"),
    ("Hypothesis h : False.", "Hypothesis outside a Section"),
    ("Variable v : False.", "Variable outside a Section"),
    ("Context (c : False).", "Context outside a Section"),
    # recursion, new types and unchecked tactics: the routes of Coq 8.16's known kernel bugs
    ("Fixpoint f (n : nat) : False := f n.", "Fixpoint"),
    ("CoFixpoint s : nat := s.", "Fixpoint"),
    ("Definition d := fix f (n : nat) : nat := n.", "fix/cofix"),
    ("Lemma l : nat -> False. Proof. fix f 1. Qed.", "fix/cofix"),
    ("Definition s := cofix f : nat := f.", "fix/cofix"),
    ("Inductive t := A.", "Inductive"),
    ("CoInductive t := A.", "Inductive"),
    ("Variant t := A.", "Variant"),
    ("Record r := { a : nat }.", "Record"),
    ("Structure r := { a : nat }.", "Structure"),
    ("Class c := { a : nat }.", "Class"),
    ("Instance i : c := {}.", "Instance"),
    ("Existing Instance i.", "Instance"),
    ("Canonical Structure s.", "Canonical"),
    ("Program Definition p : nat := _.", "Program"),
    ("Function f (n : nat) : nat := n.", "Function"),
    ("Equations f (n : nat) : nat := f n := n.", "Equations"),
    ("Lemma l : False. Proof. exact_no_check I. Qed.", "_no_check"),
    ("Lemma l : False. Proof. change_no_check True. exact I. Qed.", "_no_check"),
    ("Lemma l : False. Proof. vm_cast_no_check I. Qed.", "_no_check"),
    ("Lemma l : False. Proof. native_cast_no_check I. Qed.", "_no_check"),
    ("Lemma l : 1 = 1. Proof. native_compute. reflexivity. Qed.", "native_compute"),
    ("Set Universe Polymorphism.", "universe"),
    ("Unset Strict Universe Declaration.", "Strict Universe"),
    ("Set Definitional UIP.", "SProp"),
    ("Set Typing Flags.", "Typing Flags"),
    ("Set Guard Checking.", "only printing and proof-style options"),
]

# Each prefix is closed by Coq before the command, so the command is live code.
TRICKS = [
    "{cmd}",
    '(* " *) " *) {cmd}',  # a string inside a comment: its *) does not end the comment
    "(* (* nested *) still comment *) {cmd}",
    'Check "a""b". {cmd}',  # a doubled quote inside a string
    'Check "(*". {cmd}',  # a comment opener inside a string
    '(* "" *) {cmd}',
    '(* "*)" *) {cmd}',
    '(* "a""*)" *) {cmd}',
]


def _scan(text: str) -> list[str]:
    return _forbidden(blank_coq(text))


@pytest.mark.parametrize("trick", TRICKS)
@pytest.mark.parametrize(("cmd", "label"), FORBIDDEN_COMMANDS)
def test_every_forbidden_command_is_found_behind_every_trick(trick: str, cmd: str, label: str) -> None:
    hits = _scan(trick.format(cmd=cmd) + '\nCheck "tail".\n')
    assert any(label in hit for hit in hits), hits


@pytest.mark.parametrize(
    "text",
    [
        '(* " *) Load x. " *) Check 1.',  # the string (and Load in it) is inside the comment
        'Check "Load x. Axiom a : False.".',
        "(* Admitted (* Axiom *) Drop. *) Check 1.",
        'Notation "x =:= y" := (x = y) (at level 70). (* "Cd" *)',
        "Section S. Hypothesis h : 1 = 1. Lemma l : 1 = 1. Proof. exact h. Qed. End S.",
        "Require Import Reals.\nLemma trivial_ok : True. Proof. exact I. Qed.",
    ],
)
def test_text_coq_itself_skips_is_not_flagged(text: str) -> None:
    if "Require" in text:
        require_tool("coqc")  # the stdlib index comes from `coqc -where`
    assert _scan(text) == []


@pytest.mark.parametrize(
    "text",
    ['(* " *) Load x.', "(* never closed", "(* (* *) still open", 'Check "never closed.', '(* "a""b *) Load x.'],
)
def test_unterminated_comments_and_strings_are_rejected(text: str) -> None:
    with pytest.raises(LexError, match="unterminated"):
        blank_coq(text)


def test_blanking_keeps_lines_and_positions() -> None:
    source = '(* Admitted\n "x\n" *)\nLemma a : True.\nNotation "Axiom" := 1.\n'
    text = blank_coq(source)
    assert len(text) == len(source) and text.count("\n") == source.count("\n")
    assert "Admitted" not in text and "Axiom" not in text and "Lemma a : True." in text
    assert _forbidden(blank_coq("Lemma a : True.\nProof. admit.\nQed.")) == ["admit (line 2)"]


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("Require Import Reals Psatz.", True),
        ("Require Import Coq.Reals.Rpower.", True),
        ("From Coq Require Import Lra Lia.", True),
        ("Require Export Reals.Rtrigo.", True),
        ("Require Import Eureka.EurekaStatement.", False),
        ("From Eureka Require Import EurekaStatement.", False),
        ("From mathcomp Require Import ssreflect.", False),
        ("Require Import Ltac2.Ltac2.", False),  # ships with Coq, but outside theories/
        ("Require Import NoSuchLibrary.", False),
    ],
)
def test_require_is_limited_to_the_standard_library(text: str, ok: bool) -> None:
    require_tool("coqc")
    hits = _scan(text)
    assert (hits == []) is ok, hits


# --- agreement with coqc itself ------------------------------------------------------------


@pytest.mark.parametrize(
    "prefix",
    [
        '(* " *) " *) ',
        '(* " *) Check 7. " *) ',
        "(* (* *) *) ",
        'Fail Check "a""b". ',
        '(* "a""*)" *) ',
        "(* '\" ' *) ",
        '(* " unterminated *) ',
        "(* never closed ",
        '(* "*)" *) ',
    ],
)
def test_lexer_agrees_with_coqc(prefix: str, tmp_path) -> None:
    coqc = require_tool("coqc")
    source = prefix + "Check 4242.\n"
    (tmp_path / "Lex.v").write_text(source)
    run = subprocess.run([coqc, "-q", "Lex.v"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    coq_sees_code = run.returncode == 0 and "4242" in run.stdout
    coq_rejects = run.returncode != 0
    try:
        ours_sees_code = "Check 4242." in blank_coq(source)
    except LexError:
        assert coq_rejects, source
        return
    assert not coq_rejects, source
    assert ours_sees_code == coq_sees_code, source


# --- Lean --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "word"),
    [
        ("theorem t : 1 = 2 := by sorry\n", "sorry"),
        ("axiom cheat : False\n", "axiom"),
        ('def c := \'"\'\naxiom cheat : False\ndef d := "x"\n', "axiom"),  # a quote char literal
        ('def s := "/-"\naxiom cheat : False\ndef t := "-/"\n', "axiom"),  # comment markers in strings
        ('def s := r"\\"\naxiom cheat : False\ndef t := "x"\n', "axiom"),  # a raw string ends at "
        ('def s := s!"{(sorry : Nat)}"\n', "sorry"),  # code inside an interpolated string
        ('macro "#print" "axioms" x:ident : command => `(#check 1)\n', "macro"),
        ('notation "⊤⊤" => True\n', "notation"),
        ("set_option debug.skipKernelTC true\n", "debug.skipKernelTC"),
        ("@[implemented_by foo] def f := 1\n", "implemented_by"),
        ("@[command_elab foo] def f := 1\n", "command_elab"),
        ("export Foo (eureka_statement)\n", "export"),
        ("partial def f : Nat → Nat := f\n", "partial"),
        ("example : 2 + 2 = 4 := by native_decide\n", "native_decide"),
        ("example : 2 + 2 = 4 := by decide +native\n", "native"),
        ("example : 2 + 2 = 4 := by simp (config := {decide := true})\n", "decide := true"),
        ("set_option debug.skipKernelTC true in\ntheorem t : False := sorry\n", "skipKernelTC"),
        ("@[implemented_by g] def f : Nat := 0\n", "implemented_by"),
        ("opaque c : Nat\n", "opaque"),
        ("axiom a : False\n", "axiom"),
        ("open Lean.Elab in\ndef x := 1\n", "meta-programming"),
    ],
)
def test_lean_forbidden(source: str, word: str) -> None:
    """Each refused Lean construct is found."""
    hits = lean_forbidden(blank_lean(source))
    assert any(word in hit for hit in hits), hits


def test_lean_comments_are_skipped_and_unterminated_rejected() -> None:
    text = blank_lean(
        "-- sorry\n/- axiom /- nested -/ sorry -/\n@[simp] theorem t (h' : 1 = 1) : 1 = 1 := h'\n"
        "set_option maxHeartbeats 400000 in\nexample : True := trivial\n"
    )
    assert lean_forbidden(text) == []
    for bad in ("/- never closed", 'def s := "never closed'):
        with pytest.raises(LexError):
            blank_lean(bad)


@pytest.mark.parametrize(
    "text",
    [
        "Set Implicit Arguments.",
        "Global Set Printing All.\nSet Printing Width 80.",
        'Set Warnings "-notation-overridden".',
        "Lemma l (A : Set) (f : Set -> Set) : True. Proof. exact I. Qed.",
        "Lemma fix_point_free (x : R) : x = x. Proof. auto using eq_refl. Qed.",
        "Section S. Variable x : R. Hypothesis H : 0 < x. Lemma l : 0 < x. Proof. exact H. Qed. End S.",
        "Ltac finish := lra.\nHint Resolve Rle_refl : real.\nOpaque Rdiv.",
        "Definition sq (x : R) := x * x.\nArguments sq x : simpl never.",
        'Notation "x ²" := (x * x) (at level 1).',
        "Lemma l : 1 = 1. Proof. vm_compute. reflexivity. Qed.",
    ],
)
def test_honest_text_is_not_refused(text: str) -> None:
    """Options, identifiers and commands an honest Reals proof uses pass the scan."""
    from eurekaclaw.verify.coq_refusals import refusals

    assert refusals(blank_coq(text)) == []
