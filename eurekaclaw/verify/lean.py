"""lean_check_claim: check a model's Lean 4 proof of a lemma's claim against a generated statement.

The same three-file structure as coq.py (formal.py runs it): the project generates the statement
(lean_statement.py), the model supplies a tactic script and optional helpers.

- EurekaStatement.lean (ours): `import Mathlib` + `def eureka_statement : Prop := <statement>`,
  elaborated before any of the model's text exists (so the model's instances, notations or
  macros cannot change what it means);
- EurekaProof.lean: `import Mathlib` + helpers + `theorem eureka_claim : <statement> := by` script;
- EurekaGate.lean (ours): imports both, `theorem eureka_checked : eureka_statement :=
  eureka_claim` (the kernel checks the types agree) and `#print axioms eureka_checked`.

Statement and proof are compiled to .olean files (`lean -o`) in the work directory, which is
put on LEAN_PATH for the gate. The claim's statement needs Mathlib, so a Lake project with
Mathlib (settings.lean_project_dir) is required; commands run with `lake env lean` there.
Lean imports bring in everything a module declares, so the model's text may not extend the
syntax or elaborators (macro, syntax, notation, elab, attributes outside a small allow-list,
export, set_option outside an allow-list) — otherwise it could rewrite the gate's commands.
The proof may depend only on Lean's three standard axioms; sorryAx (sorry), Lean.ofReduceBool
(native_decide) and anything declared with `axiom` fail. Refused before Lean runs, as for Coq:
sorry/admit, axiom, unsafe and partial definitions, implemented_by/extern, opaque,
native_decide and native `decide`, `decide := true`, kernel-skipping options
(debug.skipKernelTC: every set_option outside a small allow-list) and meta-programming.
A whole-file answer (`import Mathlib`, `theorem NAME ... := by ...`) is taken apart first
(lean_answer.py).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from eurekaclaw.types.artifacts import CheckResult, Claim
from eurekaclaw.verify.checker import FormalProof, Requirement
from eurekaclaw.verify.formal import (
    GATE_MODULE,
    PROOF_MODULE,
    STATEMENT_MODULE,
    ClaimFiles,
    LexError,
    ProofRejected,
    Prover,
    blank_lean,
    find_forbidden,
    statement_for_proof,
    tool_version,
)
from eurekaclaw.verify.lean_answer import describe, split_lean_answer
from eurekaclaw.verify.limits import CheckLimits
from eurekaclaw.verify.proof_assistant import Answer, ProofAssistant, ProofSystem

LEAN_ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})

_FORBIDDEN: tuple[tuple[str, str], ...] = (
    (r"\bsorry\b", "sorry"),
    (r"\badmit\b", "admit"),
    (r"\baxiom\b", "axiom"),
    (r"\bunsafe\b", "unsafe"),
    (r"\bimplemented_by\b", "implemented_by"),
    (r"\bextern\b", "extern"),
    (r"#eval\b", "#eval"),
    (r"#exit\b", "#exit"),
    (r"\brun_(?:cmd|elab|meta|tac)\b", "run_cmd"),
    (r"\b(?:builtin_)?initialize\b", "initialize"),
    (r"\belab(?:_rules)?\b", "elab"),
    (r"\bmacro(?:_rules)?\b", "macro"),
    (r"\bsyntax\b", "syntax"),
    (r"\bdeclare_syntax_cat\b", "declare_syntax_cat"),
    (r"\b(?:notation|infix[lr]?|prefix|postfix)\b", "a notation"),
    (r"\bexport\b", "export"),
    (r"\bimport\b", "import"),
    (r"\bopaque\b", "opaque"),
    (r"\bpartial\b", "partial (a definition the kernel does not check)"),
    (r"\bnative_decide\b|\bofReduce(?:Bool|Nat)\b", "native_decide (trusts the compiler)"),
    (r"\bnative\s*:=\s*true\b|\+native\b", "decide with native evaluation"),
    (r"\bdecide\s*:=\s*true\b", "decide := true"),
    (r"\bdebug\.skipKernelTC\b", "debug.skipKernelTC (skips the kernel)"),
    (r"\bLean\.(?:Elab|Meta|Compiler|Environment|Kernel)\b", "meta-programming (Lean.Elab/Meta/Kernel)"),
)
_SAFE_ATTRIBUTES = frozenset(
    {
        "simp",
        "reducible",
        "irreducible",
        "semireducible",
        "inline",
        "noinline",
        "specialize",
        "instance",
        "ext",
        "norm_cast",
        "push_cast",
        "field_simps",
        "local",
        "scoped",
        "mono",
        "gcongr",
        "positivity",
        "continuity",
    }
)
_SAFE_OPTIONS = re.compile(
    r"(?:maxHeartbeats|maxRecDepth|synthInstance\.\w+|linter\.[\w.]+|pp\.[\w.]+|"
    r"autoImplicit|relaxedAutoImplicit)$"
)


def _forbidden(text: str) -> list[str]:
    hits = find_forbidden(text, _FORBIDDEN)
    for m in re.finditer(r"(?:@\[|\battribute\s*\[)([^\]]*)\]", text):
        words = {w.lstrip("-←") for w in re.findall(r"[^\s,\[\]]+", m.group(1))} - _SAFE_ATTRIBUTES - {""}
        words = {w for w in words if not w[0].isdigit()}  # priorities
        if words:
            hits.append(f"the attribute(s) {', '.join(sorted(words))} (line {text.count(chr(10), 0, m.start()) + 1})")
    for m in re.finditer(r"\bset_option\s+(\S+)", text):
        if not _SAFE_OPTIONS.match(m.group(1)):
            hits.append(f"set_option {m.group(1)} (line {text.count(chr(10), 0, m.start()) + 1})")
    return hits


def _parse_gate(report: str) -> tuple[list[str], list[str]]:
    axioms: list[str] = []
    problems: list[str] = []
    found = 0
    for m in re.finditer(r"depends on axioms:\s*\[([^\]]*)\]|does not depend on any axioms", report):
        found += 1
        if m.group(1) is not None:
            axioms += [a.strip() for a in m.group(1).replace("\n", " ").split(",") if a.strip()]
    if found != 1:
        problems.append("#print axioms did not report exactly once on the checked theorem")
    return axioms, problems


def _strip_script(script: str) -> str:
    text = script.strip("\n")
    text = re.sub(r"\A\s*:=\s*", "", text)
    text = re.sub(r"\A\s*by\b[ \t]*\n?", "", text)
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    indent = min((len(ln) - len(ln.lstrip()) for ln in lines), default=0)
    return "\n".join("  " + ln[indent:] for ln in lines)


def lean_files(statement: str, helpers: str, script: str) -> ClaimFiles:
    """The three files of a check; `script` is already indented as the body of `by`."""
    from eurekaclaw.verify.lean_statement import LEAN_HEADER

    indented = "\n".join("  " + line for line in statement.splitlines())
    head = LEAN_HEADER + "\n" + (helpers.rstrip() + "\n\n" if helpers.strip() else "")
    theorem = f"theorem eureka_claim :\n{indented} := by\n"
    note = (
        f"line numbers are those of the assembled file: your helpers from line {LEAN_HEADER.count(chr(10)) + 2}, "
        f"your script from line {head.count(chr(10)) + theorem.count(chr(10)) + 1}"
    )
    gate = (
        f"import {STATEMENT_MODULE}\nimport {PROOF_MODULE}\n\n"
        "theorem eureka_checked : eureka_statement := eureka_claim\n\n"
        "#print axioms eureka_checked\n"
    )
    return ClaimFiles(
        statement=statement,
        proof_note=note,
        files={
            f"{STATEMENT_MODULE}.lean": f"{LEAN_HEADER}\ndef eureka_statement : Prop :=\n{indented}\n",
            f"{PROOF_MODULE}.lean": head + theorem + script + "\n",
            f"{GATE_MODULE}.lean": gate,
        },
    )


def _take_apart(proof_script: str, helpers: str) -> Answer:
    answer = split_lean_answer(proof_script)
    if not answer.changed:
        return Answer(helpers, _strip_script(proof_script))
    # a whole file: its theorems become helpers, the script closes from them
    joined = "\n\n".join(p for p in (helpers.strip("\n"), answer.helpers) if p.strip())
    return Answer(joined, _strip_script(answer.script), describe(answer))


def _runnable(limits: CheckLimits) -> None:
    if shutil.which("lean") is None:
        raise ProofRejected("no_checker", "lean is not on PATH")
    if limits.lean_project_dir is None:
        raise ProofRejected("no_checker", "claims need Mathlib: set LEAN_PROJECT_DIR to a Lake project with Mathlib")
    if shutil.which("lake") is None:
        raise ProofRejected("no_checker", "lake is not on PATH (needed for lean_project_dir)")
    project = Path(limits.lean_project_dir)
    if not (project / "lakefile.lean").exists() and not (project / "lakefile.toml").exists():
        raise ProofRejected("error", f"{project} is not a Lake project (no lakefile)")


def _statement(claim: Claim, answer: Answer) -> str:
    from eurekaclaw.verify.lean_statement import LeanUntranslatable, lean_statement

    return statement_for_proof(claim, lean_statement, LeanUntranslatable, "Lean", answer.script, answer.helpers)


def _statement_refusals(answer: Answer) -> list[str]:
    hits: list[str] = []
    # A script that dedents out of the `by` block only adds declarations, which the same scan
    # covers as if they were helpers.
    for part, text in (("helpers", answer.helpers), ("script", answer.script)):
        try:
            hits += [f"{hit} in the {part}" for hit in _forbidden(blank_lean(text))]
        except LexError as exc:
            hits.append(f"{exc} in the {part}")
    return hits


def _argv(work: Path, name: str) -> list[str]:
    out = ["-o", str(work / name.replace(".lean", ".olean"))] if name != f"{GATE_MODULE}.lean" else []
    return ["lake", "env", "lean", *out, str(work / name)]


def _env(work: Path) -> dict[str, str]:
    # lake env prepends the project's paths to LEAN_PATH; ours lets the gate import the two
    # modules compiled into the work directory.
    return {**os.environ, "LEAN_PATH": os.pathsep.join(p for p in (str(work), os.environ.get("LEAN_PATH")) if p)}


def _prover(limits: CheckLimits) -> Prover:
    assert limits.lean_project_dir is not None  # _runnable refused the check otherwise
    return Prover(
        checker="lean",
        executable="lean",
        version=tool_version("lean"),
        argv=_argv,
        parse_report=_parse_gate,
        allowed=LEAN_ALLOWED_AXIOMS,
        cwd=Path(limits.lean_project_dir),
        env=_env,
    )


def _lean_version() -> str | None:
    return tool_version("lean")


LEAN = ProofAssistant(
    ProofSystem(
        name="lean",
        display_name="Lean",
        language="Lean",
        requirements=(
            Requirement("lean", "formal proofs (Lean 4); install elan + a toolchain"),
            Requirement("lake", "Lean projects with Mathlib (LEAN_PROJECT_DIR)"),
        ),
        purpose="Lean 4 proofs (level formal) in the Lake project with Mathlib set as LEAN_PROJECT_DIR",
        install="lean and lake are not on PATH (Lean 4 proofs, level formal; install with elan)",
        allowed_axioms=LEAN_ALLOWED_AXIOMS,
        version=_lean_version,
        take_apart=_take_apart,
        runnable=_runnable,
        statement=_statement,
        files=lambda statement, answer: lean_files(statement, answer.helpers, answer.script),
        prover=_prover,
        statement_refusals=_statement_refusals,
        order=20,
    )
)


def lean_check_claim(
    claim: Claim, proof_script: str, *, helpers: str = "", timeout_s: float = 60.0, project_dir: Path | None = None
) -> CheckResult:
    """passed only if Lean proves the statement generated from `claim` with `proof_script` (the
    tactics of `:= by`) after `helpers`, using only propext, Classical.choice and Quot.sound.
    Needs `project_dir`, a Lake project with Mathlib; without it (or without lean/lake) the
    verdict is "no_checker". A claim without a Lean translation is "skipped"."""
    limits = CheckLimits(formal_timeout_s=timeout_s, lean_project_dir=project_dir)
    return LEAN.check_proof(claim, FormalProof(proof_script, helpers), limits)
