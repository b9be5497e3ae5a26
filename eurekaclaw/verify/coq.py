"""coq_check: compile a Coq proof with coqc and gate it on `Print Assumptions`.

Allow-list, determined empirically with Coq 8.16.1 (Debian's `coq`): a Reals proof using
lra/nra/Psatz depends on ClassicalDedekindReals.sig_forall_dec and
FunctionalExtensionality.functional_extensionality_dep; one touching sqrt/exp/cos also on
ClassicalDedekindReals.sig_not_dec; one touching ln/Rpower/MVT also on Classical_Prop.classic.
These four are the axioms the standard library's real numbers are built on; nothing else passes.
"""

from __future__ import annotations

import re

from eurekaclaw.types.artifacts import CheckResult
from eurekaclaw.verify.formal import (
    ProverSpec,
    blank_comments_and_strings,
    find_forbidden,
    formal_check,
    tool_version,
)

COQ_ALLOWED_AXIOMS = frozenset({
    "ClassicalDedekindReals.sig_forall_dec",
    "ClassicalDedekindReals.sig_not_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
    "Classical_Prop.classic",
})

_FORBIDDEN: tuple[tuple[str, str], ...] = (
    (r"\bAdmitted\b", "Admitted"),
    (r"\badmit\b", "admit"),
    (r"\bgive_up\b", "give_up"),
    (r"\bAxioms?\b", "Axiom"),
    (r"\bParameters?\b", "Parameter"),
    (r"\bConjectures?\b", "Conjecture"),
    (r"\bAdmit\s+Obligations\b", "Admit Obligations"),
    (r"\bPrimitive\b", "Primitive"),
    (r"\bUnset\s+(?:Guard|Positivity|Universe)\s+Checking\b", "a disabled kernel check"),
    (r"\bbypass_check\b", "bypass_check"),
    (r"\bDeclare\s+ML\s+Module\b", "Declare ML Module"),
    (r"\bLoad\b", "Load"),
    (r"\bRedirect\b", "Redirect"),
    (r"\bExtract(?:ion)?\b", "Extraction"),
    (r"\bCd\b", "Cd"),
    (r"\bAdd\s+(?:Rec\s+)?(?:ML\s+)?(?:LoadPath|Path)\b", "Add LoadPath"),
    (r"\bDrop\b", "Drop"),
)
_SCOPE = re.compile(r"\b(Section|Module(?:\s+Type)?|End)\s+([A-Za-z_][A-Za-z0-9_']*)|\b(Hypothes[ie]s|Variables?|Context)\b")
_THEOREM = re.compile(r"\b(?:Theorem|Lemma|Corollary|Proposition|Fact|Remark|Property)\s+([A-Za-z_][A-Za-z0-9_']*)")


def _blank(source: str) -> str:
    return blank_comments_and_strings(source, block=("(*", "*)"), line=None, backslash_escapes=False)


def _forbidden(text: str) -> list[str]:
    hits = find_forbidden(text, _FORBIDDEN)
    # Hypothesis/Variable/Context are fine inside a Section (they become premises of the
    # theorems when it closes); anywhere else they are axioms.
    stack: list[tuple[str, str]] = []
    for m in _SCOPE.finditer(text):
        kind, name, local = m.group(1), m.group(2), m.group(3)
        if kind == "End":
            if any(n == name for _, n in stack):
                while stack and stack.pop()[1] != name:
                    pass
        elif kind:
            stack.append((kind.split()[0], name))
        elif local and not any(k == "Section" for k, _ in stack):
            hits.append(f"{local} outside a Section (line {text.count(chr(10), 0, m.start()) + 1})")
    return hits


def _theorem_names(text: str) -> list[str]:
    return list(dict.fromkeys(_THEOREM.findall(text)))


LIBRARY = "Eureka"
_COMPILE = ["coqc", "-q", "-Q", ".", LIBRARY]


def _gate_file(names: list[str]) -> tuple[str, str, list[str]]:
    """A second file, entirely ours, that loads the compiled proof without importing it, so
    Print Assumptions names every axiom by its qualified name (Classical_Prop.classic, not a
    `classic` made short by the proof's own imports) and the proof cannot forge the report."""
    lines = [f"Require {LIBRARY}.EurekaProof.", "Set Printing Width 1000."]
    lines += [f"Print Assumptions {LIBRARY}.EurekaProof.{name}." for name in names]
    return "EurekaGate.v", "\n".join(lines) + "\n", [*_COMPILE, "EurekaGate.v"]


def _parse_gate(report: str, names: list[str]) -> tuple[list[str], list[str]]:
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
    if blocks < len(names):
        problems.append("Print Assumptions did not report on every theorem")
    return axioms, problems


COQ = ProverSpec(
    checker="coq", executable="coqc", suffix=".v", blank=_blank, forbidden=_forbidden,
    theorem_names=_theorem_names, parse_gate=_parse_gate, allowed=COQ_ALLOWED_AXIOMS,
    gate_file=_gate_file,
)


def coq_check(source: str, *, theorem_name: str | None = None, timeout_s: float = 60.0) -> CheckResult:
    """passed only if coqc compiles `source` and the theorem (every Theorem/Lemma when no name
    is given) depends on no axiom outside COQ_ALLOWED_AXIOMS. Compiler errors are in detail;
    a timeout is "unknown"; no coqc is "no_checker"."""
    return formal_check(COQ, source, argv=lambda path: [*_COMPILE, path.name], cwd=None,
                        theorem_name=theorem_name, timeout_s=timeout_s, version=coq_version())


def coq_version() -> str | None:
    line = tool_version("coqc")
    if line is None:
        return None
    m = re.search(r"version\s+(\S+)", line)
    return m.group(1) if m else line
