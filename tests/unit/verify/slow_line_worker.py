"""A line worker that never answers, for the cancellation tests: `python -m slow_line_worker
--serve`. On each request it starts a grandchild (`sleep`), writes both pids to the request's
"pidfile" and sleeps; with SLOW_LINE_WORKER_START=<file> it writes its pid there and never
becomes ready."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from eurekaclaw.line_worker import private_stdout, serve

READY = "slow-line-worker-ready"


def _answer(request: Any) -> str:
    child = subprocess.Popen(["sleep", "3600"])
    Path(request["pidfile"]).write_text(json.dumps([os.getpid(), child.pid]))
    time.sleep(3600)
    return "{}"


def main(argv: list[str]) -> int:
    out = private_stdout()
    start_file = os.environ.get("SLOW_LINE_WORKER_START")
    if start_file:
        Path(start_file).write_text(json.dumps([os.getpid()]))
        time.sleep(3600)
    serve(out, READY, _answer)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
