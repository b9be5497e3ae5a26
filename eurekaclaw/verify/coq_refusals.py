"""What model-written Coq may not contain: the refusals applied before coqc runs.

The kernel of Coq 8.16.1 (the version Debian ships) has published soundness bugs; every one that
is known to prove `False` needs something a proof over the real numbers never needs (docs/
verification.md, "The formal trust base", lists them with their fixes):

- recursion and new types: the guard-checker bugs (rocq issues 20413, 20455, 20555, 21839, and
  22389 for cofixpoints) are reached through `Fixpoint`, `fix`, `cofix` and friends, and the
  variance/subtyping bugs through new (cumulative) inductive types;
- the unchecked tactics `*_no_check`: the VM-cache bug (rocq issue 16957, fixed in 8.17) needs
  `change_no_check`, and an ill-typed term they leave behind can corrupt the VM (issue 16891);
- the native compiler (issues 16645, 16831, 17871), primitive types, modules and functors (issues
  12155, 16646, 21051), universe polymorphism, SProp, and every option that turns a kernel check
  off (Guard/Positivity/Universe Checking, bypass_check, type-in-type).

So all of these are refused outright, whatever comes before or after them (`Local`, `#[local]`,
`Global`, attributes). Options may only be set from a short allow-list of printing and proof-style
options; any other `Set`/`Unset` is refused (fail closed: a flag not known to be harmless is not
allowed). The scan runs on text whose comments and strings were blanked exactly as Coq's lexer
reads them (formal.blank_coq), so a word hidden in a comment is not code and a word split by a
comment is not that word for coqc either.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from eurekaclaw.verify.formal import find_forbidden

# Admitting, declaring axioms, weakening the kernel, touching files, paths and plugins.
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
    (r"\b(?:Reset|Back|BackTo)\b", "Reset/Back (rewinding the document)"),
)
# Recursion, new types and the unchecked tactics: the routes of Coq 8.16's known kernel bugs.
_KERNEL_BUGS: tuple[tuple[str, str], ...] = (
    (r"\b(?:Co)?Fixpoint\b", "Fixpoint (recursion: Coq 8.16's guard checker has known bugs)"),
    (r"\b(?:co)?fix\b", "fix/cofix (recursion: Coq 8.16's guard checker has known bugs)"),
    (r"\b(?:Co)?Inductive\b", "Inductive (new types are not needed for claims over the reals)"),
    (r"\bVariant\b", "Variant (a new type)"),
    (r"\bRecord\b", "Record (a new type)"),
    (r"\bStructure\b", "Structure (a new type)"),
    (r"\bClass\b", "Class (a new type)"),
    (r"\bInstances?\b", "Instance"),
    (r"(?i)\bcanonical\b", "Canonical"),
    (r"(?i)\bprogram\b", "Program"),
    (r"\bObligations?\b", "Obligation (Program)"),
    (r"\bFunctional\b|\bFunction\b", "Function"),
    (r"\bEquations?\b", "Equations"),
    (r"\bDerive\b", "Derive"),
    (r"\bScheme\b", "Scheme"),
    (r"\w*_no_check\b", "a *_no_check tactic (skips the kernel's type check)"),
    (r"\bnative_compute\b|\bnative_cast\w*", "native_compute (the native compiler is outside the trust base)"),
    (r"<<:", "a native cast (<<:)"),
    (r"(?i)\bnative\s*compute\b|\bNativeCompute\b", "native compute options"),
    (r"(?i)\buniverses?\b|\bConstraint\b|@\{", "universe declarations"),
    (r"\b(?:Polymorphic|Monomorphic|Cumulative|NonCumulative)\b", "universe polymorphism"),
    (r"\bSProp\b|\bStrictProp\b|\bDefinitional\s+UIP\b", "SProp"),
    (r"\bPrivate\b", "Private"),
    (r"\bProof\s+using\b|\busing\s*=", "Proof using (rocq issue 19861)"),
    (r"\bRewrite\s+Rules?\b|\bSymbol\b", "rewrite rules"),
    (r"\bFunctor\b", "Functor"),
    (r"(?i)\bstrict\s+universe\b", "Strict Universe Declaration"),
)
# `vm_compute` after an unchecked conversion is the VM-cache exploit (rocq issue 16957); the
# `*_no_check` refusal already stops it, this names the attack in the message.
_VM_AFTER_NO_CHECK = re.compile(r"_no_check\b[\s\S]*\b(?:vm_compute|native_compute|vm_cast)\b")

# Options a proof may change: printing, implicit arguments, proof style, search limits.
_SAFE_OPTIONS = re.compile(
    r"(?:Printing|Implicit Arguments|Strict Implicit|Contextual Implicit|Maximal Implicit Insertion|"
    r"Reversible Pattern Implicit|Default Goal Selector|Bullet Behavior|Warnings|Silent|Ltac Debug|"
    r"Ltac Backtrace|Ltac Profiling|Debug Auto|Info Auto|Debug Eauto|Info Eauto|Firstorder Depth|"
    r"Hyps Limit|Keyed Unification|Regular Subst Tactic|Default Timeout|Search Output Name Only|"
    r"Suggest Proof Using|Asymmetric Patterns|Loose Hint Behavior|Typeclasses Debug|Typeclasses Depth|"
    r"Congruence Depth|Info Level|Diffs|Search Blacklist|Mangle Names|Nested Proofs Allowed|"
    r"Solve Unification Constraints|Structural Injection|Injection On Proofs|Intuition Negation Unfolding|"
    r"Firstorder Solver)\b"
)
# A command (not the sort `Set` in a term): Set/Unset followed by a capitalised option name.
_OPTION = re.compile(r"\b(Set|Unset)\s+([A-Z][A-Za-z0-9_]*(?:[ \t]+[A-Z][A-Za-z0-9_]*)*)")

_SCOPE = re.compile(r"\b(Section|End)\s+([A-Za-z_][A-Za-z0-9_']*)|\b(Hypothes[ie]s|Variables?|Context)\b")
# To the end of the sentence, or of the text (an unfinished sentence is checked all the same).
_REQUIRE = re.compile(r"(?:\bFrom\s+(\S+)\s+)?\bRequire\b(.*?)(?:\.(?=\s|$)|\Z)", re.S)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def refusals(text: str) -> list[str]:
    """Every forbidden command in `text` (comments and strings already blanked), with its line.
    Requires are checked separately (require_problems), as that needs the Coq installation."""
    hits = find_forbidden(text, _FORBIDDEN) + find_forbidden(text, _KERNEL_BUGS)
    if m := _VM_AFTER_NO_CHECK.search(text):
        hits.append(
            f"vm_compute after a *_no_check (the VM-cache exploit, rocq issue 16957) (line {_line(text, m.start())})"
        )
    for m in _OPTION.finditer(text):
        if not _SAFE_OPTIONS.match(m.group(2)):
            hits.append(
                f"{m.group(1)} {m.group(2)} (line {_line(text, m.start())}; only printing and proof-style options)"
            )
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
            hits.append(f"{local} outside a Section (line {_line(text, m.start())})")
    return hits


# --------------------------------------------------------------------------------------------
# Require: the standard library only
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def coqlib() -> Path | None:
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


# Standard-library modules that reach primitive integers, floats or arrays (VM/native bugs).
_PRIMITIVE_MODULES = re.compile(
    r"(?:^|\.)(?:Floats|PrimFloat|FloatOps|FloatAxioms|FloatClass|Int63|Uint63|Sint63|"
    r"PrimInt63|PArray|PrimArray|Cyclic63|Ring63|ZModulo|Specif63|Array)(?:\.|$)"
)


def _stdlib_module(name: str) -> bool:
    """Whether `Require <name>` loads a standard-library file: `Coq.`-qualified, or a short name
    found under <coqlib>/theories and nowhere in user-contrib (where other packages live)."""
    if _PRIMITIVE_MODULES.search(name):
        return False
    if name.startswith("Coq."):
        return True
    lib = coqlib()
    if lib is None:
        return False
    return name in _module_suffixes(lib / "theories") and name not in _module_suffixes(lib / "user-contrib")


def require_problems(text: str) -> list[str]:
    problems = []
    for m in _REQUIRE.finditer(text):
        line = _line(text, m.start())
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


def coq_prefix() -> str | None:
    """coqc's installation prefix (/usr for Debian's package), for the sandbox."""
    exe = shutil.which("coqc")
    return str(Path(os.path.realpath(exe)).parent.parent) if exe else None
