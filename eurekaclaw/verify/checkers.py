"""available_checkers: the registered checkers (registry.py) and whether this machine can run
them, for `eurekaclaw doctor`; entry points that did not become checkers are listed with the
reason. Only local probes (imports, `--version`); never the network."""

from __future__ import annotations

from pydantic import BaseModel

from eurekaclaw.verify import registry
from eurekaclaw.verify.checker import Checker


class CheckerInfo(BaseModel):
    name: str
    available: bool
    version: str | None = None
    detail: str = ""
    display_name: str = ""
    kind: str = ""  # "numeric" | "smt" | "formal"; "" for an entry point that is not a checker
    source: str = ""  # "built-in", or the entry point ("module:attribute") of a third-party checker
    problem: bool = False  # an entry point that was not loaded, or refused


def _probe(chk: Checker, source: str) -> CheckerInfo:
    try:
        found = bool(chk.available())
        return CheckerInfo(
            name=chk.name,
            available=found,
            version=chk.version() if found else None,
            detail=chk.detail(),
            display_name=chk.display_name,
            kind=chk.kind,
            source=source,
        )
    except Exception as exc:  # a third-party probe that crashes is reported, not raised
        return CheckerInfo(
            name=chk.name,
            available=False,
            detail=f"its availability probe failed: {type(exc).__name__}: {exc}",
            display_name=chk.display_name,
            kind=chk.kind,
            source=source,
            problem=True,
        )


def available_checkers() -> list[CheckerInfo]:
    reg = registry.current()
    out = [_probe(e.checker, "built-in" if e.builtin else e.source) for e in reg.entries]
    out += [
        CheckerInfo(name=p.name, available=False, detail=p.detail, source=p.source, problem=True) for p in reg.problems
    ]
    return out
