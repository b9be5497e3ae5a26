"""latexmk, pdflatex and bibtex inside the bubblewrap sandbox (sandbox/).

The paper's sources are copied into a fresh sandbox work directory (the only writable place
the TeX run gets), the tool runs there with the TeX tree, Perl and /usr read-only, no network,
no home, no EUREKACLAW_DIR, and the build's outputs are copied back to <session>/latex/.
TeX's own paranoid settings stay on inside (openout_any=p, openin_any=p, no shell escape): the
sanitiser is the first line, TeX's settings the second, the sandbox the third.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from pathlib import Path

# Read-only trees TeX and latexmk (Perl) need besides /usr: formats, configuration, modules.
TEX_TREES = (
    "/usr/share/texlive",
    "/usr/share/texmf",
    "/var/lib/texmf",
    "/etc/texmf",
    "/etc/perl",
    "/etc/alternatives",
    "/usr/local/texlive",
    "/usr/local/share/texmf",
)
OUTPUT_SUFFIXES = (".pdf", ".log", ".aux", ".bbl", ".blg", ".out", ".fls", ".fdb_latexmk", ".toc")
MEMORY_MB = 3072  # total; RLIMIT_AS per process is this / MAX_PROCS without a cgroup
MAX_PROCS = 6  # latexmk -> sh -> pdflatex or bibtex (pdflatex needs ~300 MB of address space)
TMP_MB = 256
FILE_MB = 128
SANDBOX_UID = 65534


def sandbox_available() -> tuple[bool, str]:
    from eurekaclaw import sandbox

    st = sandbox.status()
    return st.available, st.reason


def tex_paths(argv0: str) -> list[str]:
    """The TeX installation's read-only paths (a TeX Live outside /usr included)."""
    paths = [p for p in TEX_TREES if os.path.exists(p)]
    from eurekaclaw.sandbox import private_paths

    real = Path(os.path.realpath(shutil.which(argv0) or argv0))
    if not str(real).startswith("/usr/"):
        # a TeX Live outside /usr (<prefix>/bin/<tool>): its prefix, unless that would also show
        # a private place (home, EUREKACLAW_DIR, the host's /tmp); then the tool's folder only
        prefix = real.parent.parent
        private = private_paths()
        shows_private = any(prefix == q or prefix in q.parents or q in prefix.parents for q in private)
        paths.append(str(real.parent if shows_private else prefix))
    return paths


def _copy_in(build_dir: Path, work: Path) -> None:
    for item in build_dir.iterdir():
        if item.is_file() and not item.is_symlink():
            shutil.copy2(item, work / item.name)
            (work / item.name).chmod(0o644)
            if os.geteuid() == 0:  # the sandbox runs as uid 65534: a later pass rewrites these
                os.chown(work / item.name, SANDBOX_UID, SANDBOX_UID)


def _copy_out(work: Path, build_dir: Path) -> None:
    for item in work.iterdir():
        if item.is_file() and not item.is_symlink() and item.suffix in OUTPUT_SUFFIXES:
            shutil.copyfile(item, build_dir / item.name)


def _run_blocking(
    argv: list[str], build_dir: Path, timeout_s: float, env: dict[str, str], stop: threading.Event
) -> tuple[int | None, str, bool]:
    from eurekaclaw import sandbox

    limits = sandbox.Limits(
        timeout_s=max(timeout_s, 0.1),
        cpu_s=max(1, int(timeout_s) + 1),
        memory_mb=MEMORY_MB,
        max_procs=MAX_PROCS,
        file_mb=FILE_MB,
        tmp_mb=TMP_MB,
        max_output_bytes=2_000_000,
    )
    with sandbox.sandbox_workdir(prefix="eurekaclaw-tex-") as work:
        _copy_in(build_dir, work)
        inside = {k: v for k, v in env.items() if k not in ("PATH", "HOME", "TMPDIR")}
        inside.update(
            {"HOME": str(work), "TEXMFVAR": str(work / ".texmf-var"), "TEXMFCONFIG": str(work / ".texmf-config")}
        )
        run = sandbox.run_sandboxed(
            argv,
            limits=limits,
            ro_paths=tex_paths(argv[0]),
            rw_dir=work,
            env=inside,
            cwd=str(work),
            merge_stderr=True,
            stop=stop,
        )
        _copy_out(work, build_dir)
    return run.returncode, run.stdout.decode("utf-8", "replace"), run.timed_out


async def run_tex_sandboxed(
    argv: list[str], build_dir: Path, timeout_s: float, env: dict[str, str]
) -> tuple[int | None, str, bool]:
    """(exit code, combined output, timed out) of argv run in the sandbox on a copy of build_dir.
    Cancelling the caller stops the sandbox (its whole process tree) at once."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(_run_blocking, argv, build_dir, timeout_s, env, stop)
    except asyncio.CancelledError:
        stop.set()
        raise
