"""Shared machinery for proof-assistant checks (Coq and Lean).

A check is: size limit → forbidden-token scan (comments and strings removed first) → compile in
a fresh temporary directory with a hard timeout (the whole process group is killed) → the axiom
gate: the checker's own report of what the theorem depends on, printed after a random marker
the source cannot predict, must name nothing outside the allow-list. Anything unexpected in
that report fails the check (fail closed).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from eurekaclaw.types.artifacts import CheckResult

MAX_SOURCE_CHARS = 200_000
MAX_DETAIL_CHARS = 4_000
MAX_OUTPUT_BYTES = 2_000_000
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_'.]*")


@dataclass(frozen=True)
class ToolRun:
    returncode: int | None
    output: str
    timed_out: bool
    seconds: float


def run_tool(argv: list[str], *, cwd: Path, timeout_s: float) -> ToolRun:
    """Run a checker with stdout+stderr merged; kill its process group on timeout."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        out, _ = proc.communicate()
    text = out[:MAX_OUTPUT_BYTES].decode("utf-8", "replace")
    return ToolRun(None if timed_out else proc.returncode, text, timed_out, time.monotonic() - started)


@lru_cache(maxsize=16)
def tool_version(executable: str, flag: str = "--version") -> str | None:
    """First non-empty line of `<exe> --version`, or None when absent/broken. No network."""
    path = shutil.which(executable)
    if path is None:
        return None
    try:
        out = subprocess.run([path, flag], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [ln.strip() for ln in (out.stdout + out.stderr).splitlines() if ln.strip()]
    return lines[0] if lines else None


def blank_comments_and_strings(source: str, *, block: tuple[str, str], line: str | None,
                               backslash_escapes: bool) -> str:
    """The source with comments and string literals replaced by spaces (newlines kept, so
    positions and line numbers still match). Block comments nest, as in Coq and Lean."""
    out: list[str] = []
    i, n, depth = 0, len(source), 0
    opener, closer = block
    while i < n:
        if source.startswith(opener, i):
            depth += 1
            out.append(" " * len(opener))
            i += len(opener)
        elif depth and source.startswith(closer, i):
            depth -= 1
            out.append(" " * len(closer))
            i += len(closer)
        elif depth:
            out.append("\n" if source[i] == "\n" else " ")
            i += 1
        elif line and source.startswith(line, i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif source[i] == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" and backslash_escapes else 1  # Coq doubles "" instead
            out.append(" " + "".join("\n" if c == "\n" else " " for c in source[i + 1:j]) + " ")
            i = j + 1
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def find_forbidden(text: str, patterns: tuple[tuple[str, str], ...]) -> list[str]:
    hits = []
    for pattern, label in patterns:
        for m in re.finditer(pattern, text):
            hits.append(f"{label} (line {text.count(chr(10), 0, m.start()) + 1})")
    return hits


@dataclass(frozen=True)
class ProverSpec:
    checker: str  # "coq" | "lean"
    executable: str
    suffix: str
    blank: Callable[[str], str]
    forbidden: Callable[[str], list[str]]  # on blanked text: what is forbidden, with lines
    theorem_names: Callable[[str], list[str]]  # on blanked text
    parse_gate: Callable[[str, list[str]], tuple[list[str], list[str]]]  # → (axioms seen, problems)
    allowed: frozenset[str]
    # Either commands appended to the source that print the axiom report after `marker`
    # (names, marker) → text ...
    inline_gate: Callable[[list[str], str], str] | None = None
    # ... or a separate file compiled after the proof: names → (file name, text, argv)
    gate_file: Callable[[list[str]], tuple[str, str, list[str]]] | None = None


def formal_check(spec: ProverSpec, source: str, *, argv: Callable[[Path], list[str]], cwd: Path | None,
                 theorem_name: str | None, timeout_s: float, version: str | None) -> CheckResult:
    """Run the whole check; `argv(path)` is the compile command for the proof file."""
    def result(verdict: str, detail: str, seconds: float | None = None) -> CheckResult:
        return CheckResult(checker=spec.checker, verdict=verdict, detail=detail[:MAX_DETAIL_CHARS],  # type: ignore[arg-type]
                           version=version, seconds=None if seconds is None else round(seconds, 3))

    if shutil.which(spec.executable) is None:
        return result("no_checker", f"{spec.executable} is not on PATH")
    if len(source) > MAX_SOURCE_CHARS:
        return result("failed", f"rejected: the source is {len(source):,} characters (limit {MAX_SOURCE_CHARS:,})")
    blanked = spec.blank(source)
    hits = spec.forbidden(blanked)
    if hits:
        return result("failed", "rejected before compiling: the source uses " + ", ".join(hits))
    names = [theorem_name] if theorem_name else spec.theorem_names(blanked)
    if not names:
        return result("failed", "rejected: no named theorem or lemma found to check")
    bad = [n for n in names if not _NAME.fullmatch(n)]
    if bad:
        return result("failed", f"rejected: invalid theorem name {bad[0][:60]!r}")
    marker = f"eureka_marker_{secrets.token_hex(8)}"
    deadline = time.monotonic() + timeout_s
    with tempfile.TemporaryDirectory(prefix=f"eurekaclaw-{spec.checker}-") as tmp:
        path = Path(tmp) / f"EurekaProof{spec.suffix}"
        appended = spec.inline_gate(names, marker) if spec.inline_gate else ""
        path.write_text(source.rstrip() + "\n" + appended, encoding="utf-8")
        try:
            run = run_tool(argv(path), cwd=cwd or Path(tmp), timeout_s=timeout_s)
        except OSError as exc:
            return result("error", f"could not run {spec.executable}: {exc}")
        output = _tidy(run.output, tmp)
        seconds = run.seconds
        if run.timed_out:
            return result("unknown", f"timeout: {spec.executable} did not finish within {timeout_s:g} s", seconds)
        if run.returncode != 0:
            before = output.split(marker, 1)[0].strip()
            return result("failed", f"{spec.executable} rejected the proof:\n{before or output.strip()}", seconds)
        if spec.gate_file is not None:
            name, text, gate_argv = spec.gate_file(names)
            (Path(tmp) / name).write_text(text, encoding="utf-8")
            gate = run_tool(gate_argv, cwd=Path(tmp), timeout_s=max(deadline - time.monotonic(), 5.0))
            seconds += gate.seconds
            if gate.timed_out:
                return result("unknown", "timeout while printing the theorem's assumptions", seconds)
            if gate.returncode != 0:
                return result("failed", "could not print the theorem's assumptions (is it a top-level "
                                        f"Theorem/Lemma?):\n{_tidy(gate.output, tmp).strip()}", seconds)
            report = gate.output
        elif marker in output:
            report = output.split(marker, 1)[1]
        else:
            return result("failed", "the axiom report is missing from the checker output", seconds)
    axioms, problems = spec.parse_gate(report, names)
    extra = sorted(set(axioms) - spec.allowed)
    if extra:
        problems = [f"depends on axioms outside the allow-list: {', '.join(extra)}", *problems]
    if problems:
        return result("failed", "; ".join(problems), seconds)
    used = sorted(set(axioms))
    detail = (f"{spec.executable} checked {', '.join(names)}; "
              + (f"axioms used (all allowed): {', '.join(used)}" if used else "no axioms used"))
    return result("passed", detail, seconds)


def _tidy(output: str, tmp: str) -> str:
    return output.replace(tmp + os.sep, "").replace(tmp, ".")
