"""Compiling the paper and reading pdflatex's log.

`latexmk -pdf` when installed, else pdflatex + bibtex + pdflatex twice; always with
`-no-shell-escape`, `-interaction=nonstopmode -halt-on-error -file-line-error`, TeX's paranoid
file access (no reading or writing outside the build directory except through the TeX tree) and
a timeout that kills the whole process group; inside the bubblewrap sandbox whenever it works
here (tex_sandbox.py), otherwise directly with those settings (the paper says which).

The exit code is not trusted: pdflatex and latexmk exit 0 with undefined citations. A compile
counts as successful only when the PDF exists and the final log has no error, no undefined
citation or reference and no missing file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

AUX_SUFFIXES = (".aux", ".bbl", ".blg", ".fdb_latexmk", ".fls", ".log", ".out", ".toc", ".pdf")
DOCTOR_HINT = "install a LaTeX toolchain (see `eurekaclaw doctor`) to get paper.pdf"

_FILE_LINE = re.compile(r"^(?:\./)?[^\s:]+\.tex:(\d+): (.+)$")
_BANG = re.compile(r"^! (.+)$")
_CONTEXT_LINE = re.compile(r"^l\.(\d+) (.*)$")
_CITATION = re.compile(r"Citation [`'](.+?)' (?:on page \S+ )?undefined")
_REFERENCE = re.compile(r"Reference [`'](.+?)' on page \S+ undefined")
_MISSING = re.compile(r"File [`'](.+?)' not found")
_UNICODE = re.compile(r"Unicode character (.) \(U\+([0-9A-Fa-f]+)\)")
_UNDEF_CS = re.compile(r"(\\[A-Za-z]+|\\.)\s*$")


@dataclass
class LogError:
    message: str
    line: int | None = None
    context: str = ""  # the `l.<n> ...` text TeX printed up to the point of the error

    def undefined_control_sequence(self) -> str | None:
        if "Undefined control sequence" not in self.message:
            return None
        m = _UNDEF_CS.search(self.context)
        return m.group(1) if m else None


@dataclass
class LatexLog:
    errors: list[LogError] = field(default_factory=list)
    undefined_citations: list[str] = field(default_factory=list)
    undefined_references: list[str] = field(default_factory=list)
    missing_files: list[str] = field(default_factory=list)
    unicode_chars: list[str] = field(default_factory=list)
    undefined_flag: bool = False  # "There were undefined references/citations."

    @property
    def ok(self) -> bool:
        return not (
            self.errors
            or self.undefined_citations
            or self.undefined_references
            or self.missing_files
            or self.undefined_flag
        )

    def summary(self) -> str:
        parts = []
        for err in self.errors[:3]:
            where = f"line {err.line}: " if err.line else ""
            parts.append(f"{where}{err.message}")
        if self.undefined_citations:
            parts.append("undefined citations: " + ", ".join(self.undefined_citations))
        if self.undefined_references:
            parts.append("undefined references: " + ", ".join(self.undefined_references))
        if self.missing_files:
            parts.append("missing files: " + ", ".join(self.missing_files))
        if not parts and self.undefined_flag:
            parts.append("there were undefined references or citations")
        return "; ".join(parts)


def _add(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def parse_log(text: str) -> LatexLog:
    log = LatexLog()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _FILE_LINE.match(line) or _BANG.match(line)
        if m:
            if _FILE_LINE.match(line):
                err = LogError(message=m.group(2).strip(), line=int(m.group(1)))
            else:
                err = LogError(message=m.group(1).strip())
            # the `l.<n> text` line follows within a few lines
            for follow in lines[i + 1 : i + 12]:
                c = _CONTEXT_LINE.match(follow)
                if c:
                    err.line = err.line or int(c.group(1))
                    err.context = c.group(2)
                    break
            if not (log.errors and err.message == log.errors[-1].message and err.line == log.errors[-1].line):
                log.errors.append(err)
        for rx, bucket in (
            (_CITATION, log.undefined_citations),
            (_REFERENCE, log.undefined_references),
            (_MISSING, log.missing_files),
        ):
            found = rx.search(line)
            if found:
                _add(bucket, found.group(1))
        u = _UNICODE.search(line)
        if u:
            _add(log.unicode_chars, u.group(1))
        if "There were undefined references" in line or "There were undefined citations" in line:
            log.undefined_flag = True
    # "Emergency stop" and "Fatal error occurred" only repeat an earlier error
    if len(log.errors) > 1:
        log.errors = [
            e for e in log.errors if not e.message.startswith(("Emergency stop", "==> Fatal error"))
        ] or log.errors
    return log


@dataclass
class Toolchain:
    pdflatex: str
    latexmk: str | None = None
    bibtex: str | None = None

    @property
    def engine(self) -> str:
        return "latexmk" if self.latexmk else "pdflatex"


def find_toolchain() -> Toolchain | None:
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        return None
    return Toolchain(pdflatex=pdflatex, latexmk=shutil.which("latexmk"), bibtex=shutil.which("bibtex"))


def usable_toolchain() -> tuple[Toolchain | None, str]:
    """The toolchain the paper may be compiled with, or (None, why not). Model-written LaTeX is
    compiled only inside the bubblewrap sandbox: without one the PDF is switched off (the .tex
    and .md are still written), never built with weaker isolation."""
    toolchain = find_toolchain()
    if toolchain is None:
        return None, f"no LaTeX toolchain (pdflatex) found; {DOCTOR_HINT}"
    from eurekaclaw.agents.writer.tex_sandbox import sandbox_available

    boxed, why = sandbox_available()
    if not boxed:
        return None, (
            f"the TeX sandbox is unavailable ({why}): model-written LaTeX is compiled only "
            "inside bubblewrap, so no PDF was built; read paper.tex before compiling it yourself"
        )
    return toolchain, ""


@dataclass
class CompileResult:
    ok: bool
    engine: str
    log: LatexLog
    returncode: int | None = None
    timed_out: bool = False
    output_tail: str = ""
    pdf: Path | None = None

    def error_text(self) -> str:
        if self.timed_out:
            return f"{self.engine} timed out"
        summary = self.log.summary()
        if summary:
            return summary
        if self.pdf is None:
            return f"{self.engine} produced no PDF (exit code {self.returncode}): {self.output_tail[-300:]}"
        return ""


TEX_SETTINGS = {
    "openout_any": "p",  # write only below the build directory, never dotfiles
    "openin_any": "p",  # read only the build directory and the TeX tree
    "shell_escape": "f",
    "max_print_line": "10000",  # no wrapped log lines: keys and messages stay whole
    "error_line": "254",
    "half_error_line": "238",
    "LANG": "C.UTF-8",
}


def _tex_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(TEX_SETTINGS)
    env.pop("TEXINPUTS", None)
    return env


def use_sandbox() -> bool:
    """latexmk, pdflatex and bibtex run in the bubblewrap sandbox whenever it works here."""
    from eurekaclaw.agents.writer.tex_sandbox import sandbox_available

    return sandbox_available()[0]


async def _run(argv: list[str], cwd: Path, timeout_s: float) -> tuple[int | None, str, bool]:
    """(exit code, combined output, timed out). The process group is killed on timeout and on
    cancellation, so no TeX process outlives its run. In the sandbox when it works (only the
    TeX settings go in, never the host's environment)."""
    if use_sandbox():
        from eurekaclaw.agents.writer.tex_sandbox import run_tex_sandboxed

        return await run_tex_sandboxed(argv, cwd, timeout_s, dict(TEX_SETTINGS))
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=_tex_env(),
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=max(timeout_s, 0.1))
        return proc.returncode, out.decode("utf-8", "replace"), False
    except TimeoutError:
        return None, "", True
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                await asyncio.shield(proc.wait())


def clean_build(build_dir: Path, stem: str) -> None:
    for suffix in AUX_SUFFIXES:
        with contextlib.suppress(FileNotFoundError):
            (build_dir / f"{stem}{suffix}").unlink()


async def compile_tex(build_dir: Path, tex_name: str, toolchain: Toolchain, timeout_s: float) -> CompileResult:
    """Compile build_dir/tex_name from a clean state and judge the result by its log."""
    build_dir = Path(build_dir)
    stem = Path(tex_name).stem
    clean_build(build_dir, stem)
    flags = ["-interaction=nonstopmode", "-halt-on-error", "-file-line-error", "-no-shell-escape"]
    deadline = time.monotonic() + timeout_s
    outputs: list[str] = []
    code: int | None = None
    timed_out = False
    if toolchain.latexmk:
        pdflatex_cmd = " ".join([toolchain.pdflatex, *flags, "%O", "%S"])
        argv = [toolchain.latexmk, "-norc", "-pdf", f"-pdflatex={pdflatex_cmd}", *flags[:3], tex_name]
        code, out, timed_out = await _run(argv, build_dir, timeout_s)
        outputs.append(out)
    else:
        for kind in ("pdflatex", "bibtex", "pdflatex", "pdflatex"):
            if kind == "bibtex":
                aux = build_dir / f"{stem}.aux"
                if (
                    toolchain.bibtex is None
                    or not aux.is_file()
                    or "\\bibdata" not in aux.read_text("utf-8", "replace")
                ):
                    continue
                argv = [toolchain.bibtex, stem]
            else:
                argv = [toolchain.pdflatex, *flags, tex_name]
            code, out, timed_out = await _run(argv, build_dir, deadline - time.monotonic())
            outputs.append(out)
            # -halt-on-error: a failed pass does not get better by repeating it
            if timed_out or (kind == "pdflatex" and code != 0):
                break
    log_path = build_dir / f"{stem}.log"
    log_text = log_path.read_text("utf-8", "replace") if log_path.is_file() else ""
    parsed = parse_log(log_text)
    pdf = build_dir / f"{stem}.pdf"
    pdf_path = pdf if pdf.is_file() and pdf.stat().st_size > 0 else None
    ok = not timed_out and pdf_path is not None and parsed.ok and bool(log_text)
    return CompileResult(
        ok=ok,
        engine=toolchain.engine,
        log=parsed,
        returncode=code,
        timed_out=timed_out,
        output_tail="\n".join(outputs)[-2000:],
        pdf=pdf_path,
    )
