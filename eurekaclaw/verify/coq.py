"""coq_check_claim: check a model's Coq proof of a lemma's claim, against a statement we generate.

The model supplies a proof script (the tactics between `Proof.` and `Qed.`) and optional helper
lemmas; a whole-file answer is taken apart into those first (coq_answer.py), and text with a
refused command (coq_refusals.py: recursion, new types, unchecked tactics, kernel flags, files)
fails before anything runs. The statement comes from the claim (coq_statement.py). Three files
are compiled with `coqc -q -Q . Eureka` in a fresh temporary directory, in the sandbox (formal.py):

- EurekaStatement.v (ours): header + `Definition eureka_statement : Prop := <statement>.`
- EurekaProof.v: header + helpers + `Theorem eureka_claim : <statement>.` + `Proof.` script `Qed.`
- EurekaGate.v (ours): `Require`s the statement, binds it to a local name, then `Require`s the
  proof WITHOUT importing it (so none of its notations, definitions or `Local` overrides apply),
  proves `eureka_checked : eureka_statement` with `exact (@Eureka.EurekaProof.eureka_claim)`
  (the kernel checks the two statements are convertible: whatever the helpers redefined, the
  theorem accepted is the generated one) and runs `Print Assumptions eureka_checked`.

Where coqchk is installed, the three compiled files are then re-checked by it (same sandbox) and
the verdict is "passed" only if it accepts them and reports nothing unsafe; the result's
`rechecked_by` says so, and its detail says when coqchk was not run.

Allow-list, determined empirically with Coq 8.16.1 (Debian's `coq`): a Reals proof using
lra/nra/Psatz depends on ClassicalDedekindReals.sig_forall_dec and
FunctionalExtensionality.functional_extensionality_dep; one touching sqrt/exp/cos also on
ClassicalDedekindReals.sig_not_dec; one touching ln/Rpower/MVT also on Classical_Prop.classic.
These four are the axioms the standard library's real numbers are built on; nothing else passes.
Names in the report are qualified because the gate imports nothing.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from eurekaclaw.types.artifacts import CheckResult, Claim
from eurekaclaw.verify.checker import FormalProof, Requirement
from eurekaclaw.verify.coq_answer import describe, split_coq_answer, unclosed
from eurekaclaw.verify.coq_refusals import coq_prefix, coqlib, refusals, require_problems
from eurekaclaw.verify.formal import (
    GATE_MODULE,
    PROOF_MODULE,
    STATEMENT_MODULE,
    ClaimFiles,
    LexError,
    ProofRejected,
    Prover,
    Recheck,
    blank_coq,
    find_forbidden,
    statement_for_proof,
    tool_version,
)
from eurekaclaw.verify.limits import CheckLimits
from eurekaclaw.verify.proof_assistant import Answer, ProofAssistant, ProofSystem

COQ_ALLOWED_AXIOMS = frozenset(
    {
        "ClassicalDedekindReals.sig_forall_dec",
        "ClassicalDedekindReals.sig_not_dec",
        "FunctionalExtensionality.functional_extensionality_dep",
        "Classical_Prop.classic",
    }
)
LIBRARY = "Eureka"

# The script runs inside our `Proof. ... Qed.`; ending the proof itself is not its job.
_SCRIPT_FORBIDDEN: tuple[tuple[str, str], ...] = (
    (r"\b(?:Qed|Defined|Save|Abort|Admitted)\b", "a command that ends the proof (Qed/Defined/Save/Abort)"),
)


def _forbidden(text: str) -> list[str]:
    """Every refusal in `text` (comments and strings blanked), the Require allow-list included."""
    return refusals(text) + require_problems(text)


# --------------------------------------------------------------------------------------------
# The axiom report
# --------------------------------------------------------------------------------------------


def _parse_gate(report: str) -> tuple[list[str], list[str]]:
    """Axiom names from Print Assumptions; any other section (Section Variables, unguarded
    fixpoints, type-in-type, ...) or unexpected line is a problem."""
    axioms: list[str] = []
    problems: list[str] = []
    blocks = 0
    for line in report.splitlines():
        if not line.strip() or line[0].isspace():
            continue  # blank, or a type continuing on an indented line
        text = line.strip()
        if text in ("Closed under the global context", "Axioms:"):
            blocks += 1
        elif blocks and re.match(r"[A-Za-z_][\w'.]*\s*(:|$)", text):
            axioms.append(re.split(r"\s|:", text, maxsplit=1)[0])
        else:
            problems.append(f"unexpected line in the assumptions report: {text[:120]!r}")
    if blocks != 1:
        problems.append("Print Assumptions did not report exactly once on the checked theorem")
    return axioms, problems


# --------------------------------------------------------------------------------------------
# The check
# --------------------------------------------------------------------------------------------


def _strip_script(script: str) -> str:
    """The tactics only: a leading `Proof.` and a trailing `Qed.`/`Defined.` are ours to write."""
    text = script.strip()
    text = re.sub(r"\AProof\s*\.(?=\s|$)", "", text).strip()
    return re.sub(r"(?:^|(?<=\s))(?:Qed|Defined)\s*\.\Z", "", text).strip()


def coq_files(statement: str, helpers: str, script: str) -> ClaimFiles:
    """The three files of a check (see the module doc), with a note locating the model's text
    in the proof file for the compiler's line numbers."""
    from eurekaclaw.verify.coq_statement import COQ_HEADER

    indented = "\n".join("  " + line for line in statement.splitlines())
    head = COQ_HEADER + (helpers.rstrip() + "\n" if helpers.strip() else "")
    theorem = f"Theorem eureka_claim :\n{indented}.\nProof.\n"
    proof = head + theorem + script.rstrip() + "\nQed.\n"
    header_lines = COQ_HEADER.count("\n")
    script_line = head.count("\n") + theorem.count("\n") + 1
    note = (
        f"line numbers are those of the assembled file: header lines 1-{header_lines}, "
        + (f"your helpers from line {header_lines + 1}, " if helpers.strip() else "")
        + f"Theorem eureka_claim at line {head.count(chr(10)) + 1}, your script from line {script_line}"
    )
    statement_file = f"{COQ_HEADER}Definition eureka_statement : Prop :=\n{indented}.\n"
    gate = (
        f"Require {LIBRARY}.{STATEMENT_MODULE}.\n"
        f"Definition eureka_target : Prop := {LIBRARY}.{STATEMENT_MODULE}.eureka_statement.\n"
        f"Require {LIBRARY}.{PROOF_MODULE}.\n"
        "Theorem eureka_checked : eureka_target.\n"
        # Every argument explicit (`@`): an honest helper file may `Set Implicit Arguments`,
        # which would make the theorem's variables implicit and `exact` insert evars for them.
        f"Proof. exact (@{LIBRARY}.{PROOF_MODULE}.eureka_claim). Qed.\n"
        # Global printing options set in the proof's library survive a Require: reset them.
        "Unset Printing All.\nSet Printing Width 1000.\n"
        "Print Assumptions eureka_checked.\n"
    )
    return ClaimFiles(
        statement=statement,
        proof_note=note,
        files={f"{STATEMENT_MODULE}.v": statement_file, f"{PROOF_MODULE}.v": proof, f"{GATE_MODULE}.v": gate},
    )


def _environment(work: Path) -> dict[str, str]:
    """coqc's environment inside the sandbox: a clean one (no COQPATH, the XDG data directories
    pointed at the work dir), so a short `Require` name can only reach the standard library that
    `_stdlib_module` checked against, and nothing of the user's environment gets in."""
    return {
        "HOME": str(work),
        "XDG_DATA_HOME": str(work),
        "XDG_DATA_DIRS": str(work),
        "XDG_CONFIG_HOME": str(work),
        "XDG_CACHE_HOME": str(work),
        "LANG": "C.UTF-8",
    }


def _sandbox_paths() -> tuple[str, ...]:
    """What coqc needs besides /usr: its installation prefix and the library (read-only)."""
    prefix = coq_prefix()
    paths = [prefix] if prefix else []
    lib = coqlib()
    if lib is not None:
        paths.append(str(lib))
    # findlib's configuration (coqc loads its plugins through it); no secrets in it
    paths += [p for p in ("/etc/ocamlfind.conf", "/etc/ocamlfind.conf.d", "/etc/findlib.conf") if os.path.exists(p)]
    return tuple(paths)


def _scan(parts: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...], *, requires: bool) -> list[str]:
    """The refusals in each (name, text, extra patterns) part, Requires only when `requires`
    (the stdlib allow-list needs the Coq installation to read)."""
    hits: list[str] = []
    for part, text, extra in parts:
        try:
            blanked = blank_coq(text)
        except LexError as exc:
            hits.append(f"{exc} in the {part}")
            continue
        found = refusals(blanked) + find_forbidden(blanked, extra)
        if requires:
            found += require_problems(blanked)
        hits += [f"{hit} in the {part}" for hit in found]
    return hits


def _parts(answer: Answer) -> tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]:
    return (("helpers", answer.helpers, ()), ("script", answer.script, _SCRIPT_FORBIDDEN))


def _take_apart(proof_script: str, helpers: str) -> Answer:
    """A whole-file answer taken apart (coq_answer), else the script without our own
    Proof./Qed."""
    if (name := unclosed(split_coq_answer(helpers))) is not None:
        raise ProofRejected(
            "failed", f"rejected before compiling: {name} in the helpers is not closed by Qed or Defined"
        )
    answer = split_coq_answer(proof_script)
    if not answer.changed:
        return Answer(helpers, _strip_script(proof_script))
    if (name := unclosed(answer)) is not None:
        raise ProofRejected("failed", f"rejected before compiling: {name} is not closed by Qed or Defined")
    joined = "\n".join(p for p in (answer.requires, helpers.strip("\n"), answer.helpers) if p.strip())
    return Answer(joined, _strip_script(answer.script), describe(answer))


def _runnable(limits: CheckLimits) -> None:
    if shutil.which("coqc") is None:
        raise ProofRejected("no_checker", "coqc is not on PATH")
    from eurekaclaw import sandbox

    if not sandbox.status().available:
        raise ProofRejected(
            "no_checker", f"Coq checks are off: coqc runs only in the sandbox ({sandbox.status().reason})"
        )


def _statement(claim: Claim, answer: Answer) -> str:
    # Imported here: the translator pulls in sympy, which `eurekaclaw doctor` does not need.
    from eurekaclaw.verify.coq_statement import coq_statement
    from eurekaclaw.verify.coq_terms import CoqUntranslatable

    return statement_for_proof(claim, coq_statement, CoqUntranslatable, "Coq", answer.script, answer.helpers)


def _prover(limits: CheckLimits) -> Prover:
    return Prover(
        checker="coq",
        executable="coqc",
        version=coq_version(),
        argv=lambda work, name: ["coqc", "-q", "-Q", ".", LIBRARY, name],
        parse_report=_parse_gate,
        allowed=COQ_ALLOWED_AXIOMS,
        env=_environment,
        sandbox_paths=_sandbox_paths(),
        recheck=_coqchk(),
        recheck_missing="coqchk was not run (not installed): the proof rests on coqc alone",
    )


def coq_check_claim(claim: Claim, proof_script: str, *, helpers: str = "", timeout_s: float = 60.0) -> CheckResult:
    """passed only if coqc proves the statement generated from `claim` with `proof_script`
    (tactics, run between our `Proof.` and `Qed.`) after `helpers` (lemmas and definitions placed
    before the theorem), using no axiom outside COQ_ALLOWED_AXIOMS, and (where it is installed)
    coqchk accepts the compiled files. A whole-file answer is taken apart first (coq_answer).
    Forbidden commands (coq_refusals) are "failed" before anything runs; a claim without a Coq
    translation is "skipped"; no coqc is "no_checker"; a timeout is "unknown"; a wrong or
    rejected proof is "failed" with the reason (compiler messages included, for the Refiner)."""
    return COQ.check_proof(claim, FormalProof(proof_script, helpers), CheckLimits(formal_timeout_s=timeout_s))


# --------------------------------------------------------------------------------------------
# coqchk: the compiled files re-checked by Coq's independent checker
# --------------------------------------------------------------------------------------------

# Sections of `coqchk -o` that must be empty: anything there escaped the kernel's checks.
_COQCHK_SECTIONS = (
    "Constants/Inductives relying on type-in-type",
    "Constants/Inductives relying on unsafe (co)fixpoints",
    "Inductives whose positivity is assumed",
)


def _parse_coqchk(output: str) -> list[str]:
    """Problems in coqchk's context summary: a missing summary, an impredicative Set, or any
    entry under the unsafe sections."""
    problems = []
    if "CONTEXT SUMMARY" not in output:
        problems.append("coqchk printed no context summary")
    if "Set is predicative" not in output:
        problems.append("coqchk did not report a predicative Set")
    for section in _COQCHK_SECTIONS:
        m = re.search(re.escape(section) + r":\s*(\S.*)", output)
        if m is None or m.group(1).strip() != "<none>":
            problems.append(f"coqchk: {section}: {m.group(1).strip() if m else 'section missing'}")
    return problems


def _coqchk() -> Recheck | None:
    """coqchk on the three compiled modules (their dependencies, the stdlib, are admitted:
    they were compiled by the distribution), or None when coqchk is not installed."""
    if shutil.which("coqchk") is None:
        return None
    modules = [arg for m in (STATEMENT_MODULE, PROOF_MODULE, GATE_MODULE) for arg in ("-norec", f"{LIBRARY}.{m}")]
    version = coq_version()
    return Recheck(
        label=f"coqchk {version}" if version else "coqchk",
        argv=lambda work: ["coqchk", "-silent", "-o", "-Q", ".", LIBRARY, *modules],
        parse=_parse_coqchk,
    )


def coq_version() -> str | None:
    line = tool_version("coqc")
    if line is None:
        return None
    m = re.search(r"version\s+(\S+)", line)
    return m.group(1) if m else line


def _text_refusals(answer: Answer) -> list[str]:
    return _scan(_parts(answer), requires=False)


def _installed_refusals(answer: Answer) -> list[str]:
    return _scan(_parts(answer), requires=True)


COQ = ProofAssistant(
    ProofSystem(
        name="coq",
        display_name="Coq",
        language="Coq",
        requirements=(
            Requirement("coqc", "formal proofs (Coq); install Debian package `coq`"),
            Requirement("coqchk", "independent re-check of compiled Coq proofs (comes with Coq)", needed=False),
        ),
        purpose="Coq proofs (level formal)",
        install="install Coq (Debian: apt-get install coq) for level formal",
        allowed_axioms=COQ_ALLOWED_AXIOMS,
        version=coq_version,
        take_apart=_take_apart,
        runnable=_runnable,
        statement=_statement,
        files=lambda statement, answer: coq_files(statement, answer.helpers, answer.script),
        prover=_prover,
        text_refusals=_text_refusals,
        installed_refusals=_installed_refusals,
        order=10,
    )
)
