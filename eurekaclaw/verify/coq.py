"""coq_check_claim: check a model's Coq proof of a lemma's claim, against a statement we generate.

The model supplies a proof script (the tactics between `Proof.` and `Qed.`) and optional helper
lemmas; the statement comes from the claim (coq_statement.py). Three files are compiled with
`coqc -q -Q . Eureka` in a fresh temporary directory (formal.py):

- EurekaStatement.v (ours): header + `Definition eureka_statement : Prop := <statement>.`
- EurekaProof.v: header + helpers + `Theorem eureka_claim : <statement>.` + `Proof.` script `Qed.`
- EurekaGate.v (ours): `Require`s the statement, binds it to a local name, then `Require`s the
  proof WITHOUT importing it (so none of its notations, definitions or `Local` overrides apply),
  proves `eureka_checked : eureka_statement` with `exact Eureka.EurekaProof.eureka_claim` (the
  kernel checks the two statements are convertible: whatever the helpers redefined, the theorem
  accepted is the generated one) and runs `Print Assumptions eureka_checked`.

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
import subprocess
from functools import lru_cache
from pathlib import Path

from eurekaclaw.types.artifacts import CheckResult, Claim
from eurekaclaw.verify.formal import (
    GATE_MODULE,
    PROOF_MODULE,
    STATEMENT_MODULE,
    ClaimFiles,
    LexError,
    ProofRejected,
    Prover,
    blank_coq,
    check_claim_proof,
    find_forbidden,
    statement_for_proof,
    tool_version,
)

COQ_ALLOWED_AXIOMS = frozenset(
    {
        "ClassicalDedekindReals.sig_forall_dec",
        "ClassicalDedekindReals.sig_not_dec",
        "FunctionalExtensionality.functional_extensionality_dep",
        "Classical_Prop.classic",
    }
)
LIBRARY = "Eureka"

# Commands that admit, declare axioms, weaken the kernel, or touch files, paths and plugins.
_FORBIDDEN: tuple[tuple[str, str], ...] = (
    (r"\bAdmitted\b", "Admitted"),
    (r"\badmit\b", "admit"),
    (r"\bgive_up\b", "give_up"),
    (r"\bAxioms?\b", "Axiom"),
    (r"\bParameters?\b", "Parameter"),
    (r"\bConjectures?\b", "Conjecture"),
    (r"\bAdmit\s+Obligations\b", "Admit Obligations"),
    (r"\bPrimitive\b", "Primitive"),
    (r"\bRegister\b", "Register"),
    (r"\bDeclare\b", "Declare (ML Module, Module, Instance, ...)"),
    (r"\bModule\b", "Module"),
    (r"\bInclude\b", "Include"),
    (r"\bUnset\s+[\w ]*?Check", "a disabled kernel check"),
    (r"\bTyping\s+Flags\b", "Typing Flags"),
    (r"\bbypass_check\b", "bypass_check"),
    (r"\bLoad\b", "Load"),
    (r"\bRedirect\b", "Redirect"),
    (r"\bExtract(?:ion)?\b", "Extraction"),
    (r"\bCd\b", "Cd"),
    (r"\bAdd\s+(?:Rec\s+)?(?:ML\s+)?(?:LoadPath|Path)\b", "Add LoadPath"),
    (r"\bDrop\b", "Drop"),
    (r"\bLocate\s+(?:File|Library)\b", "Locate File"),
)
# The script runs inside our `Proof. ... Qed.`; ending the proof itself is not its job.
_SCRIPT_FORBIDDEN: tuple[tuple[str, str], ...] = (
    (r"\b(?:Qed|Defined|Save|Abort|Admitted)\b", "a command that ends the proof (Qed/Defined/Save/Abort)"),
)
_SCOPE = re.compile(r"\b(Section|End)\s+([A-Za-z_][A-Za-z0-9_']*)|\b(Hypothes[ie]s|Variables?|Context)\b")
# To the end of the sentence, or of the text (an unfinished sentence is checked all the same).
_REQUIRE = re.compile(r"(?:\bFrom\s+(\S+)\s+)?\bRequire\b(.*?)(?:\.(?=\s|$)|\Z)", re.S)


def _forbidden(text: str) -> list[str]:
    hits = find_forbidden(text, _FORBIDDEN)
    # Hypothesis/Variable/Context are fine inside a Section (they become premises of the
    # theorems when it closes); anywhere else they are axioms.
    stack: list[str] = []
    for m in _SCOPE.finditer(text):
        kind, name, local = m.group(1), m.group(2), m.group(3)
        if kind == "End" and name in stack:
            while stack.pop() != name:
                pass
        elif kind == "Section":
            stack.append(name)
        elif local and not stack:
            hits.append(f"{local} outside a Section (line {text.count(chr(10), 0, m.start()) + 1})")
    return hits + _require_problems(text)


# --------------------------------------------------------------------------------------------
# Require: the standard library only
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _coqlib() -> Path | None:
    if shutil.which("coqc") is None:
        return None
    try:
        out = subprocess.run(["coqc", "-where"], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


@lru_cache(maxsize=4)
def _module_suffixes(root: Path | None) -> frozenset[str]:
    """Every dotted suffix of the logical names of the compiled libraries under `root`
    (theories/Reals/Rpower.vo gives Rpower and Reals.Rpower)."""
    if root is None or not root.is_dir():
        return frozenset()
    out: set[str] = set()
    for vo in root.rglob("*.vo"):
        parts = vo.relative_to(root).with_suffix("").parts
        out.update(".".join(parts[i:]) for i in range(len(parts)))
    return frozenset(out)


def _stdlib_module(name: str) -> bool:
    """Whether `Require <name>` loads a standard-library file: `Coq.`-qualified, or a short name
    found under <coqlib>/theories and nowhere in user-contrib (where other packages live)."""
    if name.startswith("Coq."):
        return True
    lib = _coqlib()
    if lib is None:
        return False
    return name in _module_suffixes(lib / "theories") and name not in _module_suffixes(lib / "user-contrib")


def _require_problems(text: str) -> list[str]:
    problems = []
    for m in _REQUIRE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        prefix, rest = m.group(1), m.group(2)
        words = rest.split()
        while words and words[0] in ("Import", "Export"):
            words = words[1:]
        if prefix is not None and prefix != "Coq" and not prefix.startswith("Coq."):
            problems.append(f"From {prefix} Require (line {line}; only the standard library, From Coq, may be loaded)")
            continue
        bad = [
            w
            for w in words
            if not re.fullmatch(r"[A-Za-z_][\w'.]*", w) or not _stdlib_module(f"{prefix}.{w}" if prefix else w)
        ]
        if bad or not words:
            problems.append(
                f"Require of {' '.join(bad) or 'nothing'} (line {line}; only standard-library modules may be loaded)"
            )
    return problems


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
        f"Proof. exact {LIBRARY}.{PROOF_MODULE}.eureka_claim. Qed.\n"
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
    exe = shutil.which("coqc")
    paths = [str(Path(os.path.realpath(exe)).parent.parent)] if exe else []
    lib = _coqlib()
    if lib is not None:
        paths.append(str(lib))
    # findlib's configuration (coqc loads its plugins through it); no secrets in it
    paths += [p for p in ("/etc/ocamlfind.conf", "/etc/ocamlfind.conf.d", "/etc/findlib.conf") if os.path.exists(p)]
    return tuple(paths)


def _result(verdict: str, detail: str) -> CheckResult:
    return CheckResult(checker="coq", verdict=verdict, detail=detail, version=coq_version())  # type: ignore[arg-type]


def coq_check_claim(claim: Claim, proof_script: str, *, helpers: str = "", timeout_s: float = 60.0) -> CheckResult:
    """passed only if coqc proves the statement generated from `claim` with `proof_script`
    (tactics, run between our `Proof.` and `Qed.`) after `helpers` (lemmas and definitions placed
    before the theorem), using no axiom outside COQ_ALLOWED_AXIOMS. A claim without a Coq
    translation is "skipped"; no coqc is "no_checker"; a timeout is "unknown"; a wrong or
    rejected proof is "failed" with the reason (compiler messages included, for the Refiner)."""
    if shutil.which("coqc") is None:
        return _result("no_checker", "coqc is not on PATH")
    from eurekaclaw.tools import sandbox

    if not sandbox.status().available:
        return _result("no_checker", f"Coq checks are off: coqc runs only in the sandbox ({sandbox.status().reason})")
    # Imported here: the translator pulls in sympy, which `eurekaclaw doctor` does not need.
    from eurekaclaw.verify.coq_statement import coq_statement
    from eurekaclaw.verify.coq_terms import CoqUntranslatable

    script = _strip_script(proof_script)
    try:
        statement = statement_for_proof(claim, coq_statement, CoqUntranslatable, "Coq", script, helpers)
    except ProofRejected as exc:
        return _result(exc.verdict, exc.detail)
    hits: list[str] = []
    for part, text, extra in (("helpers", helpers, ()), ("script", script, _SCRIPT_FORBIDDEN)):
        try:
            blanked = blank_coq(text)
        except LexError as exc:
            hits.append(f"{exc} in the {part}")
            continue
        hits += [f"{hit} in the {part}" for hit in _forbidden(blanked) + find_forbidden(blanked, extra)]
    if hits:
        return _result("failed", "rejected before compiling: " + ", ".join(hits))
    prover = Prover(
        checker="coq",
        executable="coqc",
        version=coq_version(),
        argv=lambda work, name: ["coqc", "-q", "-Q", ".", LIBRARY, name],
        parse_report=_parse_gate,
        allowed=COQ_ALLOWED_AXIOMS,
        env=_environment,
        sandbox_paths=_sandbox_paths(),
    )
    return check_claim_proof(prover, coq_files(statement, helpers, script), timeout_s=timeout_s)


def coq_version() -> str | None:
    line = tool_version("coqc")
    if line is None:
        return None
    m = re.search(r"version\s+(\S+)", line)
    return m.group(1) if m else line
