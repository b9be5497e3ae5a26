"""Shared machinery for checking a model's proof of a claim with a proof assistant (Coq, Lean).

The project writes the statement, the model writes only the proof. A check is:

1. the proof's text (helpers and script) is lexed the way the proof assistant lexes it and
   scanned for forbidden commands; text the lexer cannot close (an unterminated comment or
   string) is rejected, because a scanner that guesses differently from the compiler is a hole;
2. three files are compiled in a fresh temporary directory, each with a hard timeout that kills
   the whole process group:
   - the *statement file* (ours): the generated statement as a definition, elaborated before any
     of the model's text exists, so nothing the model writes can change what it means;
   - the *proof file*: header + the model's helpers + `eureka_claim : <statement>` + the script;
   - the *gate file* (ours): loads both, proves the statement definition with exactly the
     model's theorem (the kernel checks the two are convertible) and prints the axioms that
     proof depends on;
3. the axiom report must name nothing outside the allow-list; anything unexpected in it fails
   the check (fail closed);
4. where the prover has an independent checker (Coq's coqchk), it re-checks the compiled files
   in the same sandbox, and the verdict is "passed" only if it accepts them too.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from eurekaclaw.types.artifacts import CheckResult, CheckVerdict, Claim
from eurekaclaw.verify.grammar import ClaimError

MAX_SOURCE_CHARS = 200_000
MAX_DETAIL_CHARS = 4_000
MAX_OUTPUT_BYTES = 2_000_000
STATEMENT_MODULE = "EurekaStatement"
PROOF_MODULE = "EurekaProof"
GATE_MODULE = "EurekaGate"
SANDBOX_MEMORY_MB = 4096  # total for a checker run (2 processes of 2 GiB without cgroup v2)
SANDBOX_PROCS = 2


@dataclass(frozen=True)
class ToolRun:
    returncode: int | None
    output: str
    timed_out: bool
    seconds: float


class ProofRejected(Exception):
    """A proof turned away before any compiler runs: the verdict and the reason."""

    def __init__(self, verdict: CheckVerdict, detail: str) -> None:
        super().__init__(detail)
        self.verdict, self.detail = verdict, detail


def statement_for_proof(
    claim: Claim,
    translate: Callable[[Claim], str],
    untranslatable: type[ClaimError],
    language: str,
    script: str,
    helpers: str,
) -> str:
    """The statement the proof must prove, generated from the claim. Raises ProofRejected
    ("skipped" or "error") when the claim has no translation or does not parse, and ("failed")
    for a proof that is too long or has an empty script."""
    try:
        statement = translate(claim)
    except untranslatable as exc:
        raise ProofRejected("skipped", f"the claim has no {language} translation: {exc}") from exc
    except ClaimError as exc:
        raise ProofRejected("error", f"the claim does not parse: {exc}") from exc
    if len(script) + len(helpers) > MAX_SOURCE_CHARS:
        raise ProofRejected(
            "failed", f"rejected: the proof is {len(script) + len(helpers):,} characters (limit {MAX_SOURCE_CHARS:,})"
        )
    if not script.strip():
        raise ProofRejected("failed", "rejected: the proof script is empty")
    return statement


def run_tool(
    argv: list[str],
    *,
    cwd: Path,
    timeout_s: float,
    env: dict[str, str] | None = None,
    sandbox_paths: tuple[str, ...] | None = None,
) -> ToolRun:
    """Run a checker with stdout+stderr merged; kill its process group on timeout. With
    `sandbox_paths` (read-only paths the tool needs besides /usr) it runs in the bubblewrap
    sandbox (sandbox/), where `cwd` (a sandbox_workdir) is the only writable place."""
    if sandbox_paths is not None:
        from eurekaclaw import sandbox

        limits = sandbox.Limits(
            timeout_s=max(timeout_s, 0.1),
            cpu_s=max(1, int(timeout_s) + 1),
            memory_mb=SANDBOX_MEMORY_MB,
            max_procs=SANDBOX_PROCS,
            file_mb=256,
            tmp_mb=64,
            max_output_bytes=MAX_OUTPUT_BYTES,
        )
        run = sandbox.run_sandboxed(
            argv,
            limits=limits,
            ro_paths=sandbox_paths,
            rw_dir=cwd,
            env=env,
            cwd=str(Path(os.path.realpath(cwd))),
            merge_stderr=True,
        )
        text = run.stdout.decode("utf-8", "replace")
        return ToolRun(None if run.timed_out else run.returncode, text, run.timed_out, run.seconds)
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=max(timeout_s, 0.1))
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


# --------------------------------------------------------------------------------------------
# Lexing: comments and strings, exactly as the proof assistant reads them
# --------------------------------------------------------------------------------------------


class LexError(ValueError):
    """The text has a comment or string literal that never ends."""


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _blank(text: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in text)


def _coq_string_end(source: str, start: int) -> int:
    """Index just past the string literal whose opening quote is at `start`. Coq has no
    backslash escapes; a doubled quote "" stands for one quote."""
    i, n = start + 1, len(source)
    while i < n:
        if source[i] == '"':
            if i + 1 < n and source[i + 1] == '"':
                i += 2
                continue
            return i + 1
        i += 1
    raise LexError(f"unterminated string literal starting on line {_line_of(source, start)}")


def _comment_end(
    source: str, start: int, opener: str, closer: str, string_end: Callable[[str, int], int] | None = None
) -> int:
    """The index just after the nested comment opened at `start`. With `string_end`, a string
    inside the comment is skipped whole (Coq reads strings in comments; Lean does not)."""
    depth, j, n = 1, start + len(opener), len(source)
    while depth:
        if j >= n:
            raise LexError(f"unterminated comment starting on line {_line_of(source, start)}")
        if source.startswith(opener, j):
            depth, j = depth + 1, j + len(opener)
        elif source.startswith(closer, j):
            depth, j = depth - 1, j + len(closer)
        elif string_end is not None and source[j] == '"':
            j = string_end(source, j)
        else:
            j += 1
    return j


def blank_coq(source: str) -> str:
    """The source with comments and string literals replaced by spaces (newlines kept, so line
    numbers still match), following Coq's lexer: comments nest, and a string inside a comment
    is read as a string, so in `(* " *) " *)` the first `*)` does not end the comment.
    Raises LexError for an unterminated comment or string (coqc would reject the file too,
    and a scanner must never be more lenient than the compiler)."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        if source.startswith("(*", i):
            j = _comment_end(source, i, "(*", "*)", _coq_string_end)
            out.append(_blank(source[i:j]))
            i = j
        elif source[i] == '"':
            j = _coq_string_end(source, i)
            out.append(_blank(source[i:j]))
            i = j
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


_LEAN_IDENT_CHAR = re.compile(r"[\w'!?.\u2080-\u209c\u1d62-\u1d6a]")
_LEAN_CHAR_LITERAL = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)|[^'\\\n])'")
_LEAN_RAW_STRING = re.compile(r'r(#*)"')


def blank_lean(source: str) -> str:
    """The source with Lean comments (`--` to end of line, nested `/- -/`) replaced by spaces.
    String and character literals are recognised (so a `/-` inside one is not a comment) but
    kept visible: an interpolated string `s!"{...}"` holds code, so blanking strings would hide
    it. A forbidden word inside a string is therefore rejected too, which only errs on the safe
    side. Raises LexError for an unterminated comment or string."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        prev_ident = i > 0 and bool(_LEAN_IDENT_CHAR.match(source[i - 1]))
        if source.startswith("--", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif source.startswith("/-", i):
            j = _comment_end(source, i, "/-", "-/")
            out.append(_blank(source[i:j]))
            i = j
        elif c == "r" and not prev_ident and (m := _LEAN_RAW_STRING.match(source, i)):
            closer = '"' + m.group(1)
            end = source.find(closer, m.end())
            if end < 0:
                raise LexError(f"unterminated raw string starting on line {_line_of(source, i)}")
            out.append(source[i : end + len(closer)])
            i = end + len(closer)
        elif c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            if j >= n:
                raise LexError(f"unterminated string literal starting on line {_line_of(source, i)}")
            out.append(source[i : j + 1])
            i = j + 1
        elif c == "'" and not prev_ident and (m := _LEAN_CHAR_LITERAL.match(source, i)):
            out.append(m.group())
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def find_forbidden(text: str, patterns: tuple[tuple[str, str], ...]) -> list[str]:
    hits = []
    for pattern, label in patterns:
        for m in re.finditer(pattern, text):
            hits.append(f"{label} (line {_line_of(text, m.start())})")
    return hits


# --------------------------------------------------------------------------------------------
# The three-file check
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recheck:
    """An independent checker run on the compiled files after the gate passed."""

    label: str  # e.g. "coqchk 8.16.1", recorded in CheckResult.rechecked_by
    argv: Callable[[Path], list[str]]  # work dir → command
    parse: Callable[[str], list[str]]  # its output → problems (empty: accepted)


@dataclass(frozen=True)
class Prover:
    checker: str  # "coq" | "lean"
    executable: str  # must be on PATH
    version: str | None
    argv: Callable[[Path, str], list[str]]  # (work dir, file name) → compile command
    parse_report: Callable[[str], tuple[list[str], list[str]]]  # gate output → (axioms, problems)
    allowed: frozenset[str]
    cwd: Path | None = None  # where to run (None: the work dir)
    env: Callable[[Path], dict[str, str] | None] | None = None  # work dir → environment
    sandbox_paths: tuple[str, ...] | None = None  # run in the bubblewrap sandbox with these read-only
    recheck: Recheck | None = None  # an independent checker of the compiled files, when installed
    recheck_missing: str = ""  # what the detail says when there is none ("" for provers without one)


@dataclass(frozen=True)
class ClaimFiles:
    statement: str  # the generated statement, quoted in the verdict's detail
    files: dict[str, str]  # file name → text: statement, proof and gate files, in that order
    proof_note: str = ""  # how the proof file was assembled, for the compiler's line numbers


def check_claim_proof(prover: Prover, job: ClaimFiles, *, timeout_s: float) -> CheckResult:
    """Compile statement and proof (concurrently), then the gate; passed only when the gate
    compiles, its axiom report names nothing outside `prover.allowed` and the prover's
    independent re-check (if any) accepts the compiled files."""

    def result(
        verdict: CheckVerdict, detail: str, seconds: float | None = None, recheck: str | None = None
    ) -> CheckResult:
        return CheckResult(
            checker=prover.checker,
            verdict=verdict,
            detail=detail[:MAX_DETAIL_CHARS],
            version=prover.version,
            seconds=None if seconds is None else round(seconds, 3),
            rechecked_by=recheck,
        )

    (stmt_name, _), (proof_name, _), (gate_name, _) = job.files.items()
    deadline = time.monotonic() + timeout_s
    if prover.sandbox_paths is not None:
        from eurekaclaw.sandbox import sandbox_workdir

        workdir: Any = sandbox_workdir(prefix=f"eurekaclaw-{prover.checker}-")
    else:
        workdir = tempfile.TemporaryDirectory(prefix=f"eurekaclaw-{prover.checker}-")
    with workdir as tmp_path:
        tmp = str(tmp_path)
        work = Path(tmp)
        for name, text in job.files.items():
            (work / name).write_text(text, encoding="utf-8")
        env = prover.env(work) if prover.env else None

        def run(argv: list[str]) -> ToolRun:
            return run_tool(
                argv,
                cwd=prover.cwd or work,
                timeout_s=deadline - time.monotonic(),
                env=env,
                sandbox_paths=prover.sandbox_paths,
            )

        try:
            with ThreadPoolExecutor(max_workers=2) as pool:
                stmt_future = pool.submit(run, prover.argv(work, stmt_name))
                proof_future = pool.submit(run, prover.argv(work, proof_name))
                stmt, proof = stmt_future.result(), proof_future.result()
        except OSError as exc:
            return result("error", f"could not run {prover.executable}: {exc}")
        seconds = max(stmt.seconds, proof.seconds)
        if stmt.timed_out or proof.timed_out:
            return result("unknown", f"timeout: {prover.executable} did not finish within {timeout_s:g} s", seconds)
        if stmt.returncode != 0:
            return result(
                "error",
                "the generated statement does not compile (a bug in EurekaClaw's "
                f"translation, not in the proof):\n{_tidy(stmt.output, tmp).strip()}",
                seconds,
            )
        if proof.returncode != 0:
            note = f" ({job.proof_note})" if job.proof_note else ""
            return result(
                "failed", f"{prover.executable} rejected the proof{note}:\n{_tidy(proof.output, tmp).strip()}", seconds
            )
        gate = run(prover.argv(work, gate_name))
        seconds += gate.seconds
        if gate.timed_out:
            return result("unknown", "timeout while linking the proof to the generated statement", seconds)
        if gate.returncode != 0:
            return result(
                "failed",
                f"the proof does not prove the generated statement {job.statement}:\n{_tidy(gate.output, tmp).strip()}",
                seconds,
            )
        axioms, problems = _report(prover, gate.output)
        if problems:
            return result("failed", "; ".join(problems), seconds)
        recheck_note = prover.recheck_missing
        if prover.recheck is not None:
            again = run(prover.recheck.argv(work))
            seconds += again.seconds
            failure = _recheck_failure(prover.recheck, again, tmp)
            if failure is not None:
                return result(failure[0], failure[1], seconds)
            recheck_note = f"{prover.recheck.label} re-checked the compiled files"
    used = sorted(set(axioms))
    detail = f"{prover.executable} checked the generated statement {job.statement}; " + (
        f"axioms used (all allowed): {', '.join(used)}" if used else "no axioms used"
    )
    if recheck_note:
        detail += f"; {recheck_note}"
    return result("passed", detail, seconds, prover.recheck.label if prover.recheck is not None else None)


def _report(prover: Prover, output: str) -> tuple[list[str], list[str]]:
    """(axioms, problems) of the gate's axiom report, axioms outside the allow-list first."""
    axioms, problems = prover.parse_report(output)
    extra = sorted(set(axioms) - prover.allowed)
    if extra:
        problems = [f"depends on axioms outside the allow-list: {', '.join(extra)}", *problems]
    return axioms, problems


def _recheck_failure(recheck: Recheck, run: ToolRun, tmp: str) -> tuple[CheckVerdict, str] | None:
    """(verdict, detail) when the independent re-check did not accept the files, else None."""
    if run.timed_out:
        return "unknown", f"timeout while {recheck.label} re-checked the compiled proof"
    trouble = recheck.parse(run.output)
    if run.returncode != 0 or trouble:
        detail = "; ".join(trouble) or _tidy(run.output, tmp).strip()[-1500:]
        if run.returncode != 0:
            detail = f"{_tidy(run.output, tmp).strip()[-1500:]}\n{detail}"
        return "failed", f"{recheck.label} rejected the compiled proof: {detail}"
    return None


def _tidy(output: str, tmp: str) -> str:
    return output.replace(tmp + os.sep, "").replace(tmp, ".")
