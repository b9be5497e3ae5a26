"""lean_check_claim and lean_statement. Lean (with Mathlib) is optional and not installable on
the CI machines, so everything that needs no Lean runs everywhere — the generated statement,
the assembled files, the scan, the report parser — and a real run skips without `lean`/`lake`
and LEAN_PROJECT_DIR (even under EUREKACLAW_REQUIRE_TOOLS=1)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import LeanUntranslatable, lean_check_claim
from eurekaclaw.verify.lean import LEAN_ALLOWED_AXIOMS, _parse_gate, _strip_script, lean_files
from eurekaclaw.verify.lean_statement import lean_statement

X = ClaimVariable(name="x")
POS_X = ClaimVariable(name="x", domain="positive")
N1 = ClaimVariable(name="n", domain="natural", low=1)
HALF = Claim(variables=[POS_X], conclusion="x/2 < x")


@pytest.mark.parametrize(
    ("variables", "conclusion", "expected"),
    [
        ([POS_X], "x/2 < x", "∀ (x : ℝ),\n  (0 : ℝ) < x →\n  (x * ((1 : ℝ) / 2)) < x"),
        (
            [N1, ClaimVariable(name="x", low=-1)],
            "(1 + x)^n >= 1 + n*x",
            "∀ (n : ℕ) (x : ℝ),\n  (1 : ℕ) ≤ n →\n  (-1 : ℝ) ≤ x →\n  (((1 : ℝ) + x) ^ n) ≥ ((1 : ℝ) + ((n : ℝ) * x))",
        ),
        ([X], "x^(1/3) >= 0", "∀ (x : ℝ),\n  x ≥ (0 : ℝ) →\n  (x ^ ((1 : ℝ) / 3)) ≥ (0 : ℝ)"),
        (
            [X, ClaimVariable(name="z", domain="integer", low=-3)],
            "x^z != 0",
            "∀ (x : ℝ) (z : ℤ),\n  (-3 : ℤ) ≤ z →\n  x ≠ (0 : ℝ) →\n  (x ^ (z : ℤ)) ≠ (0 : ℝ)",
        ),
        (
            [X],
            "floor(x) <= x <= sqrt(x^2) + abs(x)",
            "∀ (x : ℝ),\n  ((⌊x⌋ : ℤ) : ℝ) ≤ x ∧ x ≤ ((Real.sqrt (x ^ 2)) + |x|)",
        ),
        (
            [N1],
            "Sum(1/k^2, (k, 1, n)) <= 2",  # sympy: harmonic(n, 2); an empty Icc is the empty sum
            "∀ (n : ℕ),\n  (1 : ℕ) ≤ n →\n"
            "  (Finset.sum (Finset.Icc (1 : ℕ) n) (fun k => ((1 : ℝ) / ((k : ℝ) ^ 2)))) ≤ (2 : ℝ)",
        ),
        (
            [ClaimVariable(name="n", domain="natural"), ClaimVariable(name="z", domain="integer")],
            "Sum(1/(k^2 + 1), (k, z, n)) <= 2",
            "∀ (n : ℕ) (z : ℤ),\n  ((n : ℝ) + ((-1 : ℝ) * (z : ℝ)) + (1 : ℝ)) ≥ (0 : ℝ) →\n"
            "  (Finset.sum (Finset.Icc z (n : ℤ)) (fun k => ((1 : ℝ) / (((k : ℝ) ^ 2) + (1 : ℝ)))))"
            " ≤ (2 : ℝ)",
        ),
    ],
)
def test_statement_text(variables: list[ClaimVariable], conclusion: str, expected: str) -> None:
    assert lean_statement(Claim(variables=variables, conclusion=conclusion)) == expected


def test_untranslatable_claim() -> None:
    with pytest.raises(LeanUntranslatable):
        lean_statement(Claim(variables=[ClaimVariable(name="n", domain="natural")], conclusion="binomial(n, 2) >= 0"))


def test_files_and_script_indentation() -> None:
    script = _strip_script("by\n  intro x hx\n  linarith\n")
    assert script == "  intro x hx\n  linarith"
    job = lean_files(lean_statement(HALF), "lemma two_pos : (0 : ℝ) < 2 := by norm_num", script)
    statement, proof, gate = job.files.values()
    assert statement.startswith("import Mathlib\n\ndef eureka_statement : Prop :=\n  ∀ (x : ℝ),")
    assert "two_pos" not in statement
    assert proof.index("lemma two_pos") < proof.index("theorem eureka_claim :\n  ∀ (x : ℝ),") < proof.index("linarith")
    assert ":= by\n  intro x hx\n  linarith\n" in proof
    assert gate == (
        "import EurekaStatement\nimport EurekaProof\n\n"
        "theorem eureka_checked : eureka_statement := eureka_claim\n\n#print axioms eureka_checked\n"
    )


def test_report_parser() -> None:
    axioms, problems = _parse_gate("'eureka_checked' depends on axioms: [propext,\n Classical.choice, Quot.sound]\n")
    assert axioms == ["propext", "Classical.choice", "Quot.sound"] and problems == []
    assert set(axioms) <= LEAN_ALLOWED_AXIOMS
    axioms, _ = _parse_gate("'eureka_checked' depends on axioms: [sorryAx]\n")
    assert "sorryAx" not in LEAN_ALLOWED_AXIOMS and axioms == ["sorryAx"]
    assert _parse_gate("'eureka_checked' does not depend on any axioms\n") == ([], [])
    assert _parse_gate("")[1]


def test_forbidden_script_is_rejected_before_compiling(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # the scan runs before anything is compiled, so fake executables are enough to reach it
    for exe in ("lean", "lake"):
        (tmp_path / exe).write_text("#!/bin/sh\nexit 1\n")
        (tmp_path / exe).chmod(0o755)
    (tmp_path / "lakefile.lean").write_text("")
    monkeypatch.setenv("PATH", str(tmp_path))
    result = lean_check_claim(HALF, "intro x hx\nsorry", project_dir=tmp_path)
    assert result.verdict == "failed" and "before compiling" in result.detail and "sorry" in result.detail
    result = lean_check_claim(HALF, "linarith", helpers='macro "#print" : command => `(#check 1)', project_dir=tmp_path)
    assert result.verdict == "failed" and "macro" in result.detail


def test_missing_lean_or_mathlib_is_no_checker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert lean_check_claim(HALF, "linarith").verdict == "no_checker"
    (tmp_path / "lean").write_text("#!/bin/sh\nexit 1\n")
    (tmp_path / "lean").chmod(0o755)
    result = lean_check_claim(HALF, "linarith")  # no project: no Mathlib, no real numbers
    assert result.verdict == "no_checker" and "Mathlib" in result.detail


def test_real_lean_accepts_and_rejects() -> None:
    # Lean + Mathlib is optional and cannot be installed on the CI machines, so this skips even
    # under EUREKACLAW_REQUIRE_TOOLS=1 (require_tool would turn the skip into a failure there).
    project = os.environ.get("LEAN_PROJECT_DIR")
    if shutil.which("lean") is None or shutil.which("lake") is None or not project:
        pytest.skip("lean/lake with a Mathlib project (LEAN_PROJECT_DIR) is not available (optional checker)")
    result = lean_check_claim(HALF, "intro x hx\nlinarith", timeout_s=600, project_dir=Path(project))
    assert result.verdict == "passed", result.detail
    wrong = Claim(variables=[POS_X], conclusion="x < x/2")
    assert lean_check_claim(wrong, "intro x hx\nlinarith", timeout_s=600, project_dir=Path(project)).verdict == "failed"


# --- whole-file answers (lean_answer.py), no Lean needed -------------------------------------


def test_whole_lean_file_becomes_helpers_and_a_closing_script() -> None:
    from eurekaclaw.verify.lean_answer import split_lean_answer

    text = (
        "Here is a proof.\n```lean\nimport Mathlib\nimport Mathlib.Tactic\nopen Real\n\n"
        "-- theorem hidden : False := sorry\n"
        "theorem sq_le_self (x : ℝ) (h0 : 0 ≤ x) (h1 : x ≤ 1) : x ^ 2 ≤ x := by\n  nlinarith\n```\n"
    )
    answer = split_lean_answer(text)
    assert answer.theorems == ("sq_le_self",)  # the one in a comment is no declaration
    assert "import" not in answer.helpers and answer.helpers.startswith("open Real")
    assert answer.script.startswith("first\n  | exact @sq_le_self") and "(intros; nlinarith; done)" in answer.script
    files = lean_files("∀ (x : ℝ), 0 ≤ x → x ≤ 1 → x ^ 2 ≤ x", answer.helpers, _strip_script(answer.script))
    proof = files.files["EurekaProof.lean"]
    assert (
        proof.index("theorem sq_le_self") < proof.index("theorem eureka_claim") < proof.index("    | exact @sq_le_self")
    )


def test_lean_script_and_other_imports_are_left_for_the_scan() -> None:
    from eurekaclaw.verify.lean_answer import split_lean_answer

    assert not split_lean_answer("intro x hx\nnlinarith [sq_nonneg x]").changed
    answer = split_lean_answer("import Evil\ntheorem eureka_claim : True := trivial\n")
    assert "import Evil" in answer.helpers  # refused by the scan, not silently dropped
    assert "theorem eureka_claim_model" in answer.helpers and answer.theorems == ("eureka_claim_model",)
