"""lean_check: compile a Lean 4 proof and gate it on `#print axioms`.

Runs `lean <file>`, or `lake env lean <file>` inside `project_dir` (a Lake project with Mathlib,
settings.lean_project_dir) so `import Mathlib` resolves. The proof may depend only on Lean's
three standard axioms; sorryAx (sorry), Lean.ofReduceBool (native_decide) and anything declared
with `axiom` fail. Lean prints axioms by their full names, so the report is read from the same
run, after a random marker the source cannot predict.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from eurekaclaw.types.artifacts import CheckResult
from eurekaclaw.verify.formal import (
    ProverSpec,
    blank_comments_and_strings,
    find_forbidden,
    formal_check,
    tool_version,
)

LEAN_ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})

_FORBIDDEN: tuple[tuple[str, str], ...] = (
    (r"\bsorry\b", "sorry"),
    (r"\badmit\b", "admit"),
    (r"\baxiom\b", "axiom"),
    (r"\bunsafe\b", "unsafe"),
    (r"\bimplemented_by\b", "implemented_by"),
    (r"@\[\s*extern\b", "@[extern]"),
    (r"#eval\b", "#eval"),
    (r"#exit\b", "#exit"),
    (r"\brun_(?:cmd|elab|meta|tac)\b", "run_cmd"),
    (r"\b(?:builtin_)?initialize\b", "initialize"),
    (r"\belab(?:_rules)?\b", "elab"),
    (r"\bset_option\s+debug\.", "set_option debug.*"),
)
_THEOREM = re.compile(r"\b(?:theorem|lemma)\s+([A-Za-z_][A-Za-z0-9_'.!?]*)")


def _blank(source: str) -> str:
    return blank_comments_and_strings(source, block=("/-", "-/"), line="--", backslash_escapes=True)


def _forbidden(text: str) -> list[str]:
    return find_forbidden(text, _FORBIDDEN)


def _theorem_names(text: str) -> list[str]:
    return list(dict.fromkeys(_THEOREM.findall(text)))


def _inline_gate(names: list[str], marker: str) -> str:
    return "\n" + f'#print "{marker}"\n' + "".join(f"#print axioms {name}\n" for name in names)


def _parse_gate(report: str, names: list[str]) -> tuple[list[str], list[str]]:
    axioms: list[str] = []
    problems: list[str] = []
    found = 0
    for m in re.finditer(r"depends on axioms:\s*\[([^\]]*)\]|does not depend on any axioms", report):
        found += 1
        if m.group(1) is not None:
            axioms += [a.strip() for a in m.group(1).replace("\n", " ").split(",") if a.strip()]
    if found < len(names):
        problems.append("#print axioms did not report on every theorem")
    return axioms, problems


LEAN = ProverSpec(
    checker="lean", executable="lean", suffix=".lean", blank=_blank, forbidden=_forbidden,
    theorem_names=_theorem_names, parse_gate=_parse_gate, allowed=LEAN_ALLOWED_AXIOMS,
    inline_gate=_inline_gate,
)


def lean_check(source: str, *, theorem_name: str | None = None, timeout_s: float = 60.0,
               project_dir: Path | None = None) -> CheckResult:
    """passed only if Lean accepts `source` and the theorem(s) use no axiom beyond propext,
    Classical.choice and Quot.sound. With project_dir, runs `lake env lean` there."""
    if project_dir is not None and shutil.which("lake") is None:
        return CheckResult(checker="lean", verdict="no_checker", detail="lake is not on PATH (needed for lean_project_dir)")
    if project_dir is not None and not (Path(project_dir) / "lakefile.lean").exists() and not (Path(project_dir) / "lakefile.toml").exists():
        return CheckResult(checker="lean", verdict="error", detail=f"{project_dir} is not a Lake project (no lakefile)")

    def argv(path: Path) -> list[str]:
        return ["lake", "env", "lean", str(path)] if project_dir is not None else ["lean", path.name]

    return formal_check(LEAN, source, argv=argv, cwd=Path(project_dir) if project_dir is not None else None,
                        theorem_name=theorem_name, timeout_s=timeout_s, version=tool_version("lean"))
