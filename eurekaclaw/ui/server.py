"""Start the web app: bind the socket, print the token URL (and keep it, private, in
$EUREKACLAW_DIR/ui-server.json for `eurekaclaw ui --url`), serve until Ctrl+C, and on the way out
ask the runs this process started to stop at a checkpoint (so they stay resumable)."""

from __future__ import annotations

import logging
import os
import socket
import time
from pathlib import Path
from typing import Any

from eurekaclaw.errors import BadInputError
from eurekaclaw.ui.security import LAUNCH_PREFIX, LaunchCodes, allowed_hosts, new_token

log = logging.getLogger(__name__)

STOP_WAIT_S = 30.0
URL_FILE = "ui-server.json"


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise BadInputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def url_for(host: str, port: int, token: str) -> str:
    return f"{_origin(host, port)}/?token={token}"


def launch_url(host: str, port: int, code: str) -> str:
    """What --open hands the browser: a one-time code, never the token (argv is public in `ps`)."""
    return f"{_origin(host, port)}{LAUNCH_PREFIX}{code}"


def _origin(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def url_file() -> Path:
    from eurekaclaw.config import load_settings

    return Path(load_settings().eurekaclaw_dir) / URL_FILE


def record_url(url: str) -> Path:
    """Keep the URL for `eurekaclaw ui --url`, readable by the user only (it carries the token)."""
    from eurekaclaw.store.files import atomic_write_json, make_dirs

    path = url_file()
    make_dirs(path.parent)
    atomic_write_json(path, {"url": url, "pid": os.getpid()}, private=True)
    return path


def forget_url(path: Path) -> None:
    """Remove the URL file if it is still ours (a newer server may have replaced it)."""
    from eurekaclaw.store.session import peek_json

    data = peek_json(path, None)
    if isinstance(data, dict) and data.get("pid") == os.getpid():
        try:
            path.unlink()
        except OSError as exc:
            log.warning("could not remove %s: %s", path, exc)


def running_url() -> str | None:
    """The URL of the running server, or None when none is running (no file, or its process is gone)."""
    from eurekaclaw.store.session import peek_json

    data = peek_json(url_file(), None)
    if not isinstance(data, dict) or not isinstance(data.get("url"), str):
        return None
    try:
        pid = int(data.get("pid") or 0)
        if pid <= 0:  # 0 or negative would name a process group, not the server
            return None
        os.kill(pid, 0)
    except PermissionError:
        pass  # alive, owned by someone else
    except (OSError, ValueError, TypeError, OverflowError):
        return None
    return str(data["url"])


def serve(host: str, port: int, *, open_browser: bool, verbose: bool, uvicorn: Any) -> None:
    from eurekaclaw.console import err
    from eurekaclaw.ui.app import create_app

    sock = bind(host, port)
    port = sock.getsockname()[1]
    token = new_token()
    launch = LaunchCodes()
    app = create_app(token, allowed_hosts(host, port), launch)
    url = url_for(host, port, token)
    kept = record_url(url)
    err().print(f"EurekaClaw UI on {url}", markup=False, highlight=False, soft_wrap=True)
    err().print(
        "Keep this URL private: its token grants control of your runs. Ctrl+C stops the server.",
        markup=False,
        highlight=False,
    )
    if open_browser:
        import webbrowser

        webbrowser.open(launch_url(host, port, launch.issue()))
    config = uvicorn.Config(
        app, log_level="info" if verbose else "warning", access_log=verbose, timeout_graceful_shutdown=2
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn re-raises the Ctrl+C it handled; stopping the server is the normal end
    finally:
        sock.close()
        forget_url(kept)
        stop_own_runs()
    err().print("EurekaClaw UI stopped.", markup=False, highlight=False)


def stop_own_runs() -> None:
    """Runs started from this server live in its process: ask each to pause at its next
    checkpoint and wait for them, so none is left half-written."""
    from eurekaclaw.config import load_settings
    from eurekaclaw.store.session import Workspace

    workspace = Workspace(load_settings().eurekaclaw_dir)
    mine = [s for s in workspace.sessions() if s.running_pid() == os.getpid()]
    for session in mine:
        session.request_pause()
    deadline = time.monotonic() + STOP_WAIT_S
    while mine and time.monotonic() < deadline:
        mine = [s for s in mine if s.running_pid() == os.getpid()]
        time.sleep(0.2)
    for session in mine:
        log.warning(
            "session %s did not reach a checkpoint in time; `eurekaclaw resume %s` continues it",
            session.session_id,
            session.session_id,
        )
