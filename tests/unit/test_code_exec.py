"""The code sandbox against hostile programs. Each must be contained and reported; this process
must survive all of them."""

from __future__ import annotations

import glob
import os
import socket
import uuid

import pytest
from toolreq import tools_required

from eurekaclaw.tools.code_exec import (
    SandboxUnavailable,
    detect_isolation,
    parse_json_output,
    run_python,
    sandbox_reason,
)

ISOLATION = detect_isolation()


def isolated() -> None:
    """Tests of containment need namespaces; without them they skip (fail under REQUIRE_TOOLS)."""
    if ISOLATION == "none":
        message = f"no sandbox here: {sandbox_reason()}"
        if tools_required():
            pytest.fail(f"required tool missing: {message}")
        pytest.skip(message)


def test_json_result_and_scrubbed_environment(monkeypatch):
    isolated()
    monkeypatch.setenv("EUREKA_FAKE_SECRET_TOKEN", "s3cr3t-value-42")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake-key-for-test")
    code = """
import json, os, glob
seen = dict(os.environ)
leaks = []
for path in glob.glob('/proc/[0-9]*/environ'):
    try:
        with open(path, 'rb') as fh:
            if b's3cr3t-value-42' in fh.read():
                leaks.append(path)
    except OSError:
        pass
print(json.dumps({'env': seen, 'proc_leaks': leaks}))
"""
    res = run_python(code, timeout_s=30)
    assert res.ok, res.stderr
    assert "EUREKA_FAKE_SECRET_TOKEN" not in res.result["env"] and "ANTHROPIC_API_KEY" not in res.result["env"]
    assert "s3cr3t-value-42" not in res.stdout + res.stderr
    if ISOLATION != "none":
        assert res.result["proc_leaks"] == []  # the parent's /proc entries are not visible
    with pytest.raises(ValueError, match="secret-looking"):
        run_python("print(1)", env={"GITHUB_TOKEN": "x"})


def test_socket_to_the_host_fails():
    isolated()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    code = f"""
import json, socket
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=3)
    print(json.dumps({{'connected': True}}))
except OSError as exc:
    print(json.dumps({{'connected': False, 'error': str(exc)}}))
"""
    try:
        res = run_python(code, timeout_s=30)
        try:
            listener.accept()
            reached = True
        except BlockingIOError:
            reached = False
    finally:
        listener.close()
    assert res.isolation["network"] is True
    assert res.result["connected"] is False and not reached


def test_writes_outside_the_sandbox_do_not_land(tmp_path):
    isolated()
    target = tmp_path / "owned-by-test.txt"
    escape = f"/tmp/eurekaclaw-escape-{uuid.uuid4().hex}.txt"
    code = f"""
import json
out = {{}}
for path in [{str(target)!r}, {escape!r}, '/var/tmp/escape.txt', 'inside.txt']:
    try:
        with open(path, 'w') as fh:
            fh.write('x')
        out[path] = 'written'
    except OSError as exc:
        out[path] = type(exc).__name__
print(json.dumps(out))
"""
    res = run_python(code, timeout_s=30)
    assert res.ok, res.stderr
    assert res.result[str(target)] != "written" and not target.exists()
    assert not os.path.exists(escape)  # /tmp inside is the sandbox directory, removed afterwards
    assert not os.path.exists("/var/tmp/escape.txt")  # a private tmpfs
    assert res.result["inside.txt"] == "written"


def test_fork_bomb_is_contained():
    isolated()

    def sandbox_processes() -> int:
        count = 0
        for path in glob.glob("/proc/[0-9]*/cmdline"):
            try:
                args = open(path, "rb").read().split(b"\0")
            except OSError:
                continue
            count += any(b"/eureka/user_code.py" in a for a in args)
        return count

    code = """
import json, os, time
made, error = 0, None
for _ in range(100000):
    try:
        pid = os.fork()
    except OSError as exc:
        error = exc.errno
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    made += 1
print(json.dumps({'forked': made, 'errno': error}))
"""
    res = run_python(code, timeout_s=30, max_procs=16)
    assert res.ok, res.stderr
    assert res.result["forked"] <= 16 and res.result["errno"] is not None
    assert sandbox_processes() == 0  # the sleeping children died with the sandbox


def test_memory_hog_hits_the_memory_limit():
    isolated()
    res = run_python("x = bytearray(3 * 1024**3)\nprint('{}')", memory_mb=256, timeout_s=30)
    assert not res.ok and res.limit == "memory" and res.limits["memory_mb"] == 256


def test_infinite_loop_hits_the_cpu_limit():
    isolated()
    res = run_python("while True:\n    pass", cpu_s=1, timeout_s=60)
    assert not res.ok and res.limit == "cpu"


def test_sleeping_program_hits_the_wall_clock():
    isolated()
    res = run_python("import time\ntime.sleep(120)", timeout_s=1, cpu_s=10)
    assert res.timed_out and res.limit == "timeout" and res.result is None


def test_output_is_capped_and_non_json_is_reported():
    isolated()
    res = run_python("print('x' * 100_000)", max_output_bytes=1000, timeout_s=30)
    assert res.stdout_truncated and len(res.stdout) == 1000
    assert res.json_error and not res.ok
    big = run_python("open('big.bin', 'wb').write(b'0' * (20 * 2**20))", max_file_mb=4, timeout_s=30)
    assert big.limit == "file_size" and not big.ok


def test_deeply_nested_json_is_refused_not_a_crash():
    isolated()
    res = run_python("print('[' * 100000 + ']' * 100000)", timeout_s=30)
    assert not res.ok and "nested deeper" in res.json_error
    assert parse_json_output("[" * 5000 + "]" * 5000)[1].startswith("stdout JSON is nested deeper")
    assert parse_json_output('{"a": "[[[[[[["}') == ({"a": "[[[[[[["}, None)


def test_output_flood_is_cut_at_the_cap():
    isolated()
    res = run_python(
        "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)", max_output_bytes=100_000, timeout_s=20
    )
    assert res.stdout_truncated and len(res.stdout) == 100_000 and not res.timed_out


def test_eurekaclaw_dir_from_dotenv_and_home_are_invisible(tmp_path, monkeypatch):
    isolated()
    hidden = tmp_path / "from-dotenv"
    hidden.mkdir()
    (hidden / "secret.txt").write_text("dotenv-secret")
    work = tmp_path / "cwd"
    work.mkdir()
    (work / ".env").write_text(f"EUREKACLAW_DIR={hidden}\n")
    monkeypatch.chdir(work)
    code = f"""
import json, os
print(json.dumps({{'dotenv': os.path.exists({str(hidden)!r}), 'cwd': os.path.exists({str(work)!r}),
                  'home': os.path.exists({os.path.expanduser("~")!r}) and os.listdir({os.path.expanduser("~")!r})}}))
"""
    res = run_python(code, timeout_s=30)
    assert res.ok, res.stderr
    assert res.result["dotenv"] is False and res.result["cwd"] is False
    assert not res.result["home"] or all(
        name.startswith(".") and name not in (".ssh", ".eurekaclaw") for name in res.result["home"]
    )


def test_without_bwrap_nothing_runs(monkeypatch):
    from eurekaclaw import sandbox

    monkeypatch.setattr(sandbox, "status", lambda: sandbox.SandboxStatus(False, "bubblewrap (bwrap) is not installed"))
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        run_python("print(1)")
    assert detect_isolation() == "none" and "bubblewrap" in sandbox_reason()
