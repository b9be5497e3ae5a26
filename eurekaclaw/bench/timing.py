"""Where a bench session's time went, from what the session already writes.

- Stages: wall time from the `stage` events of events.jsonl (running → completed/failed/...);
  CPU time from the marks the bench's display (session_run.StageClock) takes at the same
  events while the session runs.
- Checkers: each `CheckResult` in the theory state (proved lemmas, failed attempts, the
  consistency check) carries its checker and its wall seconds. The checks a lemma's claim gets
  before it is proved are kept only as cached copies (0 s), so their time is taken from the
  lemma events instead (`precheck_wall_s`).
- Model calls: the `llm_call` start/end events, paired by call number.
- TeX: from the writer's "compiling" event to its next `write` event, less the model calls
  (compile repairs) in between.

CPU is the process's own (all threads) plus its child processes': reaped children from
`os.times()`, and live ones (the SMT worker pool keeps solvers alive between checks) from
/proc. Checks run concurrently in threads and in shared worker processes, so CPU is measured
per stage and per session, not per checker.
"""

from __future__ import annotations

import json
import os
import time
from datetime import datetime
from pathlib import Path
from typing import Any

_ENDED = ("completed", "failed", "skipped", "interrupted", "absent", "paused")
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _live_children_cpu(root: int) -> float:
    """CPU seconds of the live descendants of `root` (Linux /proc; 0 elsewhere)."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) < 13:
            continue
        pid = int(name)
        parents[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / _TICKS
    below = {root}
    changed = True
    while changed:  # descendants at any depth (latexmk → sh → pdflatex)
        changed = False
        for pid, ppid in parents.items():
            if ppid in below and pid not in below:
                below.add(pid)
                changed = True
    return sum(cpu[pid] for pid in below if pid != root)


def cpu_now() -> float:
    """CPU seconds used so far by this process and its children, live or reaped."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system + _live_children_cpu(os.getpid())


def stage_cpu(marks: list[tuple[str, str, float]]) -> dict[str, float]:
    """CPU seconds per stage from (stage, status, cpu) marks; a stage run twice adds up."""
    out: dict[str, float] = {}
    started: dict[str, float] = {}
    for name, status, cpu in marks:
        if status == "running":
            started[name] = cpu
        elif status in _ENDED and name in started:
            out[name] = round(out.get(name, 0.0) + cpu - started.pop(name), 3)
    return out


def _ts(event: dict[str, Any]) -> float | None:
    try:
        return datetime.fromisoformat(str(event["ts"])).timestamp()
    except (KeyError, ValueError):
        return None


def read_events(session_dir: Path) -> list[dict[str, Any]]:
    path = session_dir / "events.jsonl"
    events: list[dict[str, Any]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return events
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue  # a line torn by a kill: the rest still counts
        if isinstance(event, dict) and _ts(event) is not None:
            events.append(event)
    return events


def stage_wall(events: list[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {}
    started: dict[str, float] = {}
    for e in events:
        if e.get("kind") != "stage":
            continue
        name, status, ts = str(e.get("name")), e.get("status"), _ts(e)
        if status == "running" and ts is not None:
            started[name] = ts
        elif status in _ENDED and name in started and ts is not None:
            out[name] = round(out.get(name, 0.0) + ts - started.pop(name), 3)
    return out


def model_calls(events: list[dict[str, Any]]) -> tuple[list[tuple[float, float]], dict[str, Any]]:
    """The (start, end) of every model call, and their count and wall seconds by stage."""
    starts: dict[Any, tuple[float, str]] = {}
    spans: list[tuple[float, float]] = []
    by_stage: dict[str, dict[str, float]] = {}
    for e in events:
        if e.get("kind") != "llm_call":
            continue
        ts = _ts(e)
        if ts is None:
            continue
        if e.get("phase") == "start":
            starts[e.get("call")] = (ts, str(e.get("stage") or "other"))
        elif e.get("phase") == "end" and e.get("call") in starts:
            begun, stage = starts.pop(e.get("call"))
            spans.append((begun, ts))
            row = by_stage.setdefault(stage, {"calls": 0, "wall_s": 0.0})
            row["calls"] += 1
            row["wall_s"] = round(row["wall_s"] + ts - begun, 3)
    total = {
        "calls": len(spans),
        "wall_s": round(sum(b - a for a, b in spans), 3),
        "by_stage": by_stage,
    }
    return spans, total


def tex_wall(events: list[dict[str, Any]], calls: list[tuple[float, float]]) -> float | None:
    """Seconds spent compiling the paper (None: it was not compiled)."""
    total, begun = 0.0, None
    seen = False
    for e in events:
        if e.get("kind") != "write":
            continue
        ts = _ts(e)
        message = str(e.get("message") or "")
        if message.startswith("compiling") and ts is not None:
            begun, seen = ts, True
        elif begun is not None and ts is not None:
            repairs = sum(min(b, ts) - max(a, begun) for a, b in calls if a < ts and b > begun)
            total += max(0.0, ts - begun - repairs)
            begun = None
    return round(total, 3) if seen else None


def precheck_wall(events: list[dict[str, Any]]) -> float:
    """Seconds of the claim checks run before a lemma is proved (its `checking` state, or a
    lemma refuted straight from `pending`): their CheckResults are not kept in the theory state
    (the proof record holds cached copies, timed 0), so the lemma events are the record."""
    total = 0.0
    last: dict[str, tuple[str, float]] = {}
    for e in events:
        if e.get("kind") != "lemma" or not e.get("lemma_id"):
            continue
        ts, state, lemma = _ts(e), str(e.get("state")), str(e["lemma_id"])
        if ts is None:
            continue
        before = last.get(lemma)
        if before is not None and (before[0] == "checking" or (before[0] == "pending" and state == "refuted")):
            total += ts - before[1]
        last[lemma] = (state, ts)
    return round(total, 3)


def checker_wall(theory: dict[str, Any] | None) -> dict[str, dict[str, float]]:
    """Count and wall seconds per checker over every check the theory state keeps."""
    if not isinstance(theory, dict):
        return {}
    checks: list[Any] = []
    for record in (theory.get("proven_lemmas") or {}).values():
        checks.extend((record or {}).get("checks") or [])
    for attempt in theory.get("failed_attempts") or []:
        checks.extend((attempt or {}).get("checks") or [])
    if isinstance(theory.get("consistency_check"), dict):
        checks.append(theory["consistency_check"])
    out: dict[str, dict[str, float]] = {}
    for check in checks:
        if not isinstance(check, dict) or not check.get("checker"):
            continue
        row = out.setdefault(str(check["checker"]), {"count": 0, "wall_s": 0.0})
        row["count"] += 1
        row["wall_s"] = round(row["wall_s"] + float(check.get("seconds") or 0.0), 3)
    return dict(sorted(out.items()))


def breakdown(
    session_dir: Path | None, theory: dict[str, Any] | None, marks: list[tuple[str, str, float]]
) -> dict[str, Any]:
    """The session's time by stage, checker, model calls and TeX (see the module docstring)."""
    events = read_events(session_dir) if session_dir is not None else []
    spans, calls = model_calls(events)
    cpu = stage_cpu(marks)
    walls = stage_wall(events)
    stages = {name: {"wall_s": walls.get(name), "cpu_s": cpu.get(name)} for name in dict.fromkeys([*walls, *cpu])}
    return {
        "stages": stages,
        "checkers": checker_wall(theory),
        "model": calls,
        "tex_wall_s": tex_wall(events, spans),
        "precheck_wall_s": precheck_wall(events),
    }


class Stopwatch:
    """Wall and CPU of the whole session, started before the orchestrator is built."""

    def __init__(self) -> None:
        self.wall0 = time.monotonic()
        self.cpu0 = cpu_now()

    def read(self) -> tuple[float, float]:
        return round(time.monotonic() - self.wall0, 3), round(cpu_now() - self.cpu0, 3)


def top_items(timing: dict[str, Any], n: int = 4) -> list[tuple[str, float]]:
    """The largest wall-time items of a breakdown, for the slowest-runs table."""
    items: list[tuple[str, float]] = []
    for name, row in (timing.get("stages") or {}).items():
        if row.get("wall_s"):
            items.append((f"stage {name}", float(row["wall_s"])))
    for name, row in (timing.get("checkers") or {}).items():
        if row.get("wall_s"):
            items.append((f"{name} ×{int(row['count'])}", float(row["wall_s"])))
    model = timing.get("model") or {}
    if model.get("wall_s"):
        items.append((f"model ×{model.get('calls', 0)}", float(model["wall_s"])))
    if timing.get("tex_wall_s"):
        items.append(("TeX", float(timing["tex_wall_s"])))
    if timing.get("precheck_wall_s"):
        items.append(("claim checks before proving", float(timing["precheck_wall_s"])))
    items.sort(key=lambda kv: -kv[1])
    return items[:n]
