"""Hostile programs against sandbox/, run as a script (as root, or as uid 65534 under
setpriv) by test_sandbox_hostile.py: `python sandbox_hostile_driver.py <sandbox dir> <base dir>`.

Loads the sandbox package by path (standard library only, so a bare interpreter the
unprivileged user can run will do), plants decoys (secrets in the environment, in $HOME/.ssh, in EUREKACLAW_DIR from
the environment and from ./.env, a host Unix socket), runs each hostile program in a fresh
sandbox and prints one JSON object: case -> {"contained": bool, "detail": str}.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

SECRET = "eureka-decoy-" + "s3cr3t-4242"
MARKER = "eureka-hostile-marker-7c1d"


def load(path: str):  # noqa: ANN201
    package = os.path.abspath(path)  # the sandbox package directory
    spec = importlib.util.spec_from_file_location(
        "eureka_sandbox_under_test", os.path.join(package, "__init__.py"), submodule_search_locations=[package]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def plant(base: Path) -> dict[str, str]:
    home, edir, edir2, hostdir = base / "home", base / "eureka", base / "eureka-dotenv", base / "hosttmp"
    for d in (home / ".ssh", edir, edir2, hostdir):
        d.mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    (home / ".ssh" / "id_rsa").chmod(0o600)
    (edir / ".env").write_text(f"ANTHROPIC_API_KEY={SECRET}\n")
    (edir2 / "secret.txt").write_text(SECRET)
    (base / ".env").write_text(f"EUREKACLAW_DIR={edir2}\n")
    os.environ.update(
        {"HOME": str(home), "EUREKACLAW_DIR": str(edir), "ANTHROPIC_API_KEY": SECRET, "GITHUB_TOKEN": SECRET}
    )
    os.chdir(base)
    return {"home": str(home), "edir": str(edir), "edir2": str(edir2), "hostdir": str(hostdir), "base": str(base)}


def main() -> None:
    sys.argv[1] = os.path.abspath(sys.argv[1])
    sb = load(sys.argv[1])
    base = Path(sys.argv[2])
    if len(sys.argv) > 3 and sys.argv[3] == "orphan":  # the die-with-parent case's child
        os.chdir(base)
        sb.run_python_sandboxed(f"import time\n# {MARKER}\ntime.sleep(60)\n", limits=sb.Limits(timeout_s=60, cpu_s=60))
        return
    paths = plant(base)
    out: dict[str, dict[str, object]] = {}

    def run(code: str, **limits: object):  # noqa: ANN202
        lim = sb.Limits(**{"timeout_s": 30, "cpu_s": 20, "memory_mb": 256, "max_procs": 8, **limits})
        res = sb.run_python_sandboxed(code, limits=lim)
        text = res.stdout.decode("utf-8", "replace")
        try:
            value = json.loads(text.strip().splitlines()[-1]) if text.strip() else None
        except ValueError:
            value = None
        return res, text, value

    clock = [time.monotonic()]

    def record(name: str, contained: bool, detail: object) -> None:
        now = time.monotonic()
        out[name] = {"contained": bool(contained), "detail": str(detail)[:600], "seconds": round(now - clock[0], 2)}
        clock[0] = now

    # 1. secrets in the environment and in other processes' environments
    res, text, value = run(
        """
import glob, json, os
data = ''.join(open(p, 'rb').read().decode('latin1') for p in glob.glob('/proc/*/environ') if os.access(p, os.R_OK))
print(json.dumps({'env': dict(os.environ), 'procenv': data}))
""".replace("SECRET", SECRET)
    )
    record("env_secrets", SECRET not in text + res.stderr.decode("latin1"), value and list(value["env"]))

    # 2. secret files: ~/.ssh decoy, EUREKACLAW_DIR (env and ./.env), cwd, walking the whole view
    secret_paths = [
        paths["home"] + "/.ssh/id_rsa",
        paths["edir"] + "/.env",
        paths["edir2"] + "/secret.txt",
        paths["base"] + "/.env",
        "/proc/1/root" + paths["home"] + "/.ssh/id_rsa",
    ]
    res, text, value = run(
        f"""
import json, os
targets = {secret_paths!r}
got = {{}}
for t in targets:
    try:
        got[t] = open(t).read()
    except OSError as exc:
        got[t] = type(exc).__name__
found = []
secret = {SECRET[:9]!r} + {SECRET[9:]!r}
import sys
for root, dirs, files in os.walk('/'):
    if root.startswith(('/proc', '/sys', '/usr', '/dev', sys.base_prefix, sys.prefix)):
        dirs[:] = []
        continue
    for f in files:
        try:
            if secret in open(os.path.join(root, f), errors='ignore').read(1 << 16):
                found.append(os.path.join(root, f))
        except OSError:
            pass
print(json.dumps({{'got': got, 'found': found, 'root': os.listdir('/'), 'leak': any(secret in v for v in got.values())}}))
""",
        memory_mb=1024,
    )
    record("secret_files", value is not None and not value["leak"] and not value["found"], value or res.stderr[-300:])

    # 3. writes outside the sandbox
    targets = [
        paths["home"] + "/pwned",
        paths["hostdir"] + "/pwned",
        "/tmp/" + MARKER,
        "/var/tmp/" + MARKER,
        "/usr/" + MARKER,
        "/" + MARKER,
        paths["base"] + "/pwned",
    ]
    res, text, value = run(f"""
import json
r = {{}}
for t in {targets!r}:
    try:
        open(t, 'w').write('x'); r[t] = 'written'
    except OSError as exc:
        r[t] = type(exc).__name__
print(json.dumps(r))
""")
    landed = [t for t in targets if os.path.exists(t)]
    record("writes_outside", not landed and value is not None, {"landed": landed, "program": value})

    # 4. TCP to the host and beyond, 5. UDP, 6. Unix sockets (path and abstract)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(4)
    tcp.setblocking(False)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    upath = paths["hostdir"] + "/agent.sock"
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(upath)
    unix.listen(4)
    unix.setblocking(False)
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0" + MARKER)
    abstract.listen(4)
    abstract.setblocking(False)
    res, text, value = run(f"""
import json, socket
r = {{}}
def attempt(name, fn):
    try:
        fn(); r[name] = 'connected'
    except OSError as exc:
        r[name] = type(exc).__name__
attempt('tcp_host', lambda: socket.create_connection(('127.0.0.1', {tcp.getsockname()[1]}), timeout=2))
attempt('tcp_world', lambda: socket.create_connection(('1.1.1.1', 53), timeout=2))
def udp_send():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', {udp.getsockname()[1]}))
attempt('udp_host', udp_send)
def unix_path():
    s = socket.socket(socket.AF_UNIX); s.connect({upath!r})
attempt('unix_path', unix_path)
def unix_abstract():
    s = socket.socket(socket.AF_UNIX); s.connect('\\0{MARKER}')
attempt('unix_abstract', unix_abstract)
print(json.dumps(r))
""")
    time.sleep(0.2)
    reached = {}
    for name, sock in (("tcp", tcp), ("unix", unix), ("abstract", abstract)):
        try:
            sock.accept()
            reached[name] = True
        except BlockingIOError:
            reached[name] = False
    try:
        udp.recvfrom(10)
        reached["udp"] = True
    except BlockingIOError:
        reached["udp"] = False
    for s in (tcp, udp, unix, abstract):
        s.close()
    vals = value or {}
    record(
        "tcp",
        not reached["tcp"] and vals.get("tcp_host") not in (None, "connected") and vals.get("tcp_world") != "connected",
        vals,
    )
    record("udp", not reached["udp"], {"program": vals.get("udp_host"), "reached": reached["udp"]})
    record(
        "unix_sockets",
        not reached["unix"]
        and not reached["abstract"]
        and vals.get("unix_path") not in (None, "connected")
        and vals.get("unix_abstract") not in (None, "connected"),
        vals,
    )

    # 7. umount / mount / setuid / nested user namespace
    res, text, value = run("""
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
r = {}
for target in (b'/usr', b'/tmp', b'/proc', b'/', b'/eureka'):
    r['umount ' + target.decode()] = libc.umount2(target, 2)
r['mount tmpfs'] = libc.mount(b'none', b'/usr', b'tmpfs', 0, None)
r['unshare user+mount'] = libc.unshare(0x10000000 | 0x00020000)
if r['unshare user+mount'] == 0:
    r['umount after unshare'] = libc.umount2(b'/usr', 2)
try:
    os.setuid(0); r['setuid'] = 0
except OSError:
    r['setuid'] = -1
r['caps'] = [l.strip() for l in open('/proc/self/status') if l.startswith(('CapEff', 'CapPrm', 'NoNewPrivs', 'Uid'))]
print(json.dumps(r))
""")
    ok = value is not None and all(v != 0 for k, v in value.items() if k.startswith(("umount", "mount", "setuid")))
    ok = ok and any(c.startswith("CapEff:\t0000000000000000") for c in value["caps"])
    record("mount_umount", ok, value)

    # 8. ptrace: the driver (a host process) and pid 1
    res, text, value = run(f"""
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
r = {{}}
for pid in ({os.getpid()}, 1):
    rc = libc.ptrace(16, pid, None, None)
    r[str(pid)] = [rc, ctypes.get_errno()]
r['pids'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
print(json.dumps(r))
""")
    record(
        "ptrace",
        value is not None
        and value[str(os.getpid())][0] != 0
        and os.getpid() not in value["pids"]
        or value is not None
        and value[str(os.getpid())][0] != 0,
        value,
    )

    # 9. fork bomb
    res, text, value = run(
        f"""
import json, os, time
made, err = 0, None
for _ in range(100000):
    try:
        pid = os.fork()
    except OSError as exc:
        err = exc.errno; break
    if pid == 0:
        time.sleep(60)  # {MARKER}
        os._exit(0)
    made += 1
print(json.dumps({{'forked': made, 'errno': err}}))
""",
        max_procs=8,
    )
    time.sleep(0.3)
    left = _marker_processes()
    record(
        "fork_bomb",
        value is not None and value["forked"] <= 8 and value["errno"] is not None and not left,
        {"program": value, "left": left},
    )

    # 10. memory across many processes
    res, text, value = run(
        """
import json, os
r, w = os.pipe()
kids = []
for i in range(8):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        chunks, got = [], 0
        try:
            while got < 1024:
                chunks.append(bytearray(8 * 2**20)); got += 8
        except MemoryError:
            pass
        os.write(w, (str(got) + '\\n').encode()); os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
os.close(w)
total = sum(int(x) for x in os.read(r, 65536).split())
print(json.dumps({'children': len(kids), 'total_mb': total}))
""",
        memory_mb=256,
        max_procs=8,
    )
    record("memory_many_processes", value is not None and value["total_mb"] <= 256, {"program": value, "cap_mb": 256})

    # 11. disk fill
    res, text, value = run(
        """
import json, os
total = 0
for d in ('/tmp', '/dev/shm', '/var/tmp', '/eureka', '/'):
    for i in range(1000):
        try:
            with open(f'{d}/fill{i}', 'wb') as fh:
                for _ in range(4):
                    fh.write(b'0' * 2**20); total += 1
        except OSError:
            break
print(json.dumps({'written_mb': total}))
""",
        tmp_mb=32,
        file_mb=8,
    )
    record("disk_fill", value is not None and value["written_mb"] <= 32 + 16 + 2, value)

    # 12. CPU loop
    started = time.monotonic()
    res, text, value = run("while True:\n    pass\n", cpu_s=1, timeout_s=20)
    record(
        "cpu_loop",
        res.returncode != 0 and time.monotonic() - started < 15 and not res.timed_out,
        {"rc": res.returncode, "cpu": res.cpu_seconds},
    )

    # 13. killing the parent
    res, text, value = run(f"""
import json, os, signal
r = {{}}
for name, pid in (('ppid', os.getppid()), ('driver', {os.getpid()}), ('all', -1)):
    try:
        os.kill(pid, signal.SIGKILL); r[name] = 'sent'
    except OSError as exc:
        r[name] = type(exc).__name__
print(json.dumps(r))
""")
    record("kill_parent", res.returncode is not None and value is not None and value.get("driver") != "sent", value)

    # 14. the host process dies: the sandbox dies with it
    child = subprocess.Popen([sys.executable, __file__, sys.argv[1], str(base), "orphan"])
    deadline = time.monotonic() + 20
    while not _marker_processes() and time.monotonic() < deadline:
        time.sleep(0.1)
    started_ok = bool(_marker_processes())
    child.send_signal(signal.SIGKILL)
    child.wait()
    time.sleep(1.0)
    left = _marker_processes()
    record("die_with_parent", started_ok and not left, {"started": started_ok, "left": left})

    print(json.dumps(out))


def _marker_processes() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if MARKER.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
                continue
            # a forked child shares the parent's cmdline; look at the code file it runs instead
            if b"/eureka/user_code.py" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


if __name__ == "__main__":
    main()
