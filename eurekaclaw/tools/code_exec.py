"""Run model-written Python in the bubblewrap sandbox (sandbox/) and return its JSON result.

Every run: a fresh sandbox (its own PID, network, IPC, UTS, mount and user namespaces; uid 65534
with no capabilities and no_new_privs; a read-only view of /usr and the interpreter's prefix
only; a size-capped tmpfs /tmp as the working directory; no $HOME, EUREKACLAW_DIR, host /tmp or
Unix socket); an environment reduced to an allow-list (no API keys, tokens or proxies); a CPU
limit per process, a total memory cap across processes, a process count, a file-size limit and a
wall clock that kills the whole sandbox; stdout/stderr read through capped pipes; the result
parsed as JSON from stdout with a nesting-depth limit.

There is no weaker mode: without a working bwrap, detect_isolation() is "none" and run_python()
raises SandboxUnavailable; callers (the Experiment stage, the tool) turn code execution off and
say why in one line (sandbox_reason()).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from eurekaclaw import sandbox
from eurekaclaw.sandbox import SandboxUnavailable as SandboxUnavailable  # re-exported for callers

Isolation = Literal["bubblewrap", "none"]
MEMORY_EXIT = sandbox.MEMORY_EXIT
MAX_JSON_DEPTH = 64
SAFE_ENV = {
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
}
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PROXY", re.IGNORECASE)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")


@dataclass
class ExecResult:
    ok: bool
    returncode: int | None
    stdout: str
    stderr: str
    result: Any = None
    json_error: str | None = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    limit: str | None = None  # timeout | cpu | memory | file_size | disk | processes, when a limit ended the run
    seconds: float = 0.0
    isolation: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def detect_isolation() -> Isolation:
    """ "bubblewrap" when a sandbox can be built here (probed once per process), else "none"."""
    return "bubblewrap" if sandbox.status().available else "none"


def sandbox_reason() -> str:
    """One line: why model-written code is not run here (empty when it is)."""
    st = sandbox.status()
    return "" if st.available else f"model-written code is not run: no sandbox ({st.reason})"


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON text nests arrays/objects deeper than `limit` (strings are skipped)."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def parse_json_output(stdout: str, max_depth: int = MAX_JSON_DEPTH) -> tuple[Any, str | None]:
    """The JSON value printed on stdout (the whole text, else its last line)."""
    text = stdout.strip()
    if not text:
        return None, "no output on stdout"
    lines = text.splitlines()
    for candidate in (text, lines[-1]) if len(lines) > 1 else (text,):
        if json_depth_exceeds(candidate, max_depth):
            return None, f"stdout JSON is nested deeper than {max_depth} levels"
        try:
            return json.loads(candidate), None
        except (json.JSONDecodeError, RecursionError, ValueError):
            continue
    return None, "stdout is not JSON (print one JSON object, e.g. as the last line)"


def _classify(run: sandbox.SandboxRun, cpu_s: int, stderr: str) -> str | None:
    import signal

    rc = run.returncode
    if run.timed_out:
        return "timeout"
    if rc in (-signal.SIGXCPU, 128 + signal.SIGXCPU) or run.cpu_seconds >= cpu_s - 0.05:
        return "cpu"
    if rc in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ) or "[Errno 27]" in stderr:
        return "file_size"
    if (
        rc == MEMORY_EXIT
        or run.oom_killed
        or (rc in (-signal.SIGKILL, 128 + signal.SIGKILL) and run.memory_cap == "cgroup")
    ):
        return "memory"
    if "[Errno 28]" in stderr:
        return "disk"
    return None


def run_python(
    code: str,
    *,
    timeout_s: float = 60.0,
    cpu_s: int = 60,
    memory_mb: int = 1024,
    max_output_bytes: int = 1_000_000,
    max_file_mb: int = 64,
    max_procs: int = 4,
    tmp_mb: int = 64,
    env: dict[str, str] | None = None,
    python: str | None = None,
) -> ExecResult:
    """Run `code` as a Python program in the sandbox; see the module docstring. `memory_mb` is
    the total for all the program's processes. Raises SandboxUnavailable without a sandbox."""
    extra = dict(env or {})
    leaked = [k for k in extra if _SECRET_NAME.search(k)]
    if leaked:
        raise ValueError(f"refusing to pass secret-looking variables into the sandbox: {', '.join(leaked)}")
    bad = [k for k in extra if not _ENV_NAME.match(k) or "\x00" in str(extra[k])]
    if bad:
        raise ValueError(f"invalid environment variable names or values: {', '.join(map(repr, bad))}")
    st = sandbox.status()
    if not st.available:
        raise SandboxUnavailable(sandbox_reason())
    limits = sandbox.Limits(
        timeout_s=timeout_s,
        cpu_s=cpu_s,
        memory_mb=memory_mb,
        max_procs=max_procs,
        file_mb=max_file_mb,
        tmp_mb=tmp_mb,
        max_output_bytes=max_output_bytes,
    )
    run = sandbox.run_python_sandboxed(code, limits=limits, env={**SAFE_ENV, **extra}, python=python)
    stdout = run.stdout.decode("utf-8", "replace")
    stderr = run.stderr.decode("utf-8", "replace")
    result, json_error = parse_json_output(stdout) if not run.timed_out else (None, "timed out")
    if run.stdout_truncated and json_error:
        json_error = f"stdout exceeded {max_output_bytes} bytes and was cut; {json_error}"
    limit = _classify(run, cpu_s, stderr)
    isolation_info = {
        "mode": "bubblewrap",
        "network": True,
        "pid_namespace": True,
        "filesystem": "private",
        "user": "nobody",
        "memory_cap": run.memory_cap,
        "sandbox": st.reason,
    }
    return ExecResult(
        ok=run.returncode == 0 and not run.timed_out and json_error is None,
        returncode=run.returncode,
        stdout=stdout,
        stderr=stderr,
        result=result,
        json_error=json_error,
        stdout_truncated=run.stdout_truncated,
        stderr_truncated=run.stderr_truncated,
        timed_out=run.timed_out,
        limit=limit,
        seconds=round(run.seconds, 3),
        isolation=isolation_info,
        limits=run.limits,
        warnings=[],
    )
