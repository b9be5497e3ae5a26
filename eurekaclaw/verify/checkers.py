"""available_checkers: which verification tools this machine has, for `eurekaclaw doctor`.
Only local probes (imports, `--version`); never the network."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import shutil

from pydantic import BaseModel

from eurekaclaw.verify.coq import COQ_ALLOWED_AXIOMS, coq_version
from eurekaclaw.verify.formal import tool_version
from eurekaclaw.verify.lean import LEAN_ALLOWED_AXIOMS


class CheckerInfo(BaseModel):
    name: str
    available: bool
    version: str | None = None
    detail: str = ""


def _dist_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def available_checkers() -> list[CheckerInfo]:
    out: list[CheckerInfo] = []
    numeric = {m: _dist_version(m) for m in ("sympy", "numpy", "scipy")}
    missing = [m for m, v in numeric.items() if v is None]
    out.append(
        CheckerInfo(
            name="falsifier",
            available=not missing,
            version=", ".join(f"{m} {v}" for m, v in numeric.items() if v),
            detail=(
                "numeric counterexample search (evidence only, never a proof)"
                if not missing
                else f"missing: {', '.join(missing)}"
            ),
        )
    )
    z3_found = importlib.util.find_spec("z3") is not None
    out.append(
        CheckerInfo(
            name="z3",
            available=z3_found,
            version=_dist_version("z3-solver") if z3_found else None,
            detail="SMT proofs of claims (level smt)" if z3_found else "pip install z3-solver (extra: smt)",
        )
    )
    cvc5_found = importlib.util.find_spec("cvc5") is not None
    out.append(
        CheckerInfo(
            name="cvc5",
            available=cvc5_found,
            version=_dist_version("cvc5") if cvc5_found else None,
            detail="optional second SMT opinion" if cvc5_found else "optional second SMT opinion (pip install cvc5)",
        )
    )
    coq_found = shutil.which("coqc") is not None
    out.append(
        CheckerInfo(
            name="coqc",
            available=coq_found,
            version=coq_version() if coq_found else None,
            detail=(
                f"Coq proofs (level formal); allowed axioms: {', '.join(sorted(COQ_ALLOWED_AXIOMS))}"
                if coq_found
                else "install Coq (Debian: apt-get install coq) for level formal"
            ),
        )
    )
    for exe, what in (
        ("lean", "Lean 4 proofs (level formal)"),
        ("lake", "Lean projects with Mathlib (LEAN_PROJECT_DIR)"),
    ):
        found = shutil.which(exe) is not None
        detail = f"{what}; allowed axioms: {', '.join(sorted(LEAN_ALLOWED_AXIOMS))}" if exe == "lean" else what
        out.append(
            CheckerInfo(
                name=exe,
                available=found,
                version=tool_version(exe) if found else None,
                detail=detail if found else f"not on PATH ({what}; install with elan)",
            )
        )
    return out
