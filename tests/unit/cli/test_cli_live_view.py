"""The live display is alive (issue #16): the clock ticks without events, the running model
call shows its role, lemma and elapsed time, and log lines go through the display's console."""

from __future__ import annotations

import asyncio
import io
import logging

import pytest
from rich.console import Console

from eurekaclaw.orchestrator import progress
from eurekaclaw.orchestrator.progress import RunUI, WatchedBackend, elapsed_text


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def render_text(ui: RunUI) -> str:
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(ui._render_safely())
    return buf.getvalue()


def test_elapsed_text() -> None:
    assert elapsed_text(5) == "5s" and elapsed_text(125) == "2m05s" and elapsed_text(3 * 3600 + 60) == "3h01m"


def test_the_clock_moves_without_any_event() -> None:
    clock = FakeClock()
    ui = RunUI(live=False, clock=clock)
    ui.start("s1", "prove")
    assert "elapsed 0s" in render_text(ui)
    clock.now += 125  # two minutes in formalize, no event at all
    assert "elapsed 2m05s" in render_text(ui)


def test_the_live_region_is_rebuilt_at_each_refresh(monkeypatch: pytest.MonkeyPatch) -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=True, color_system=None)
    monkeypatch.setattr(progress, "err", lambda: console)
    clock = FakeClock()
    ui = RunUI(live=True, clock=clock)
    ui.start("s2", "prove")
    try:
        clock.now += 61
        ui._live.refresh()  # what rich's refresh thread does four times a second
        assert "elapsed 1m01s" in buf.getvalue()
    finally:
        ui.stop()


class SlowBackend:
    name = "slow"

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()

    def model_for(self, tier: str) -> str:
        return "slow-model"

    def demonstration_profile(self) -> dict:
        return {"theory_max_iterations": 1}

    async def complete(self, request):
        self.started.set()
        await self.release.wait()
        return "reply"


class Req:
    role = "prover"
    lemma_id = "L2"
    stage = "theory"


async def test_a_running_call_is_shown_with_role_lemma_and_elapsed_time() -> None:
    clock = FakeClock()
    ui = RunUI(live=False, clock=clock)
    ui.start("s3", "prove")
    inner = SlowBackend()
    backend = ui.watch(inner)
    assert isinstance(backend, WatchedBackend) and ui.watch(backend) is backend and ui.watch(None) is None
    assert backend.name == "slow" and backend.model_for("main") == "slow-model"
    assert backend.demonstration_profile() == {"theory_max_iterations": 1}  # everything else delegated
    task = asyncio.create_task(backend.complete(Req()))
    await inner.started.wait()
    clock.now += 42
    shown = render_text(ui)
    assert "prover" in shown and "lemma L2" in shown and "theory" in shown and "42s" in shown
    inner.release.set()
    assert await task == "reply"
    assert "prover" not in render_text(ui)


async def test_a_failed_call_leaves_the_display() -> None:
    ui = RunUI(live=False, clock=FakeClock())

    class Failing(SlowBackend):
        async def complete(self, request):
            raise RuntimeError("boom")

    backend = ui.watch(Failing())
    with pytest.raises(RuntimeError):
        await backend.complete(Req())
    assert ui.calls == {}


def test_many_calls_are_summarised() -> None:
    ui = RunUI(live=False, clock=FakeClock())
    for i in range(RunUI.MAX_CALLS_SHOWN + 3):
        ui.call_started("prover", f"L{i}")
    assert "3 more calls running" in render_text(ui)


def test_the_orchestrator_watches_the_backend_it_builds(tmp_path) -> None:
    from eurekaclaw.config import load_settings
    from eurekaclaw.orchestrator.meta import MetaOrchestrator

    ui = RunUI(live=False, quiet=True)
    orch = MetaOrchestrator(load_settings(), llm_override="schema", ui=ui)
    backend, name = orch.prepare_backend()
    assert name == "schema" and isinstance(backend, WatchedBackend)


def test_log_lines_go_through_the_display_console(monkeypatch: pytest.MonkeyPatch) -> None:
    from eurekaclaw import console as console_mod
    from eurekaclaw.console import ConsoleLogHandler, setup_logging

    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=True, color_system=None)
    monkeypatch.setattr(console_mod, "err", lambda: console)
    monkeypatch.setattr(progress, "err", lambda: console)
    setup_logging(False)
    assert any(isinstance(h, ConsoleLogHandler) for h in logging.getLogger().handlers)
    ui = RunUI(live=True, clock=FakeClock())
    ui.start("s4", "prove")
    try:
        logging.getLogger("eurekaclaw.llm.local_backend").warning("the prompt was trimmed")
    finally:
        ui.stop()
    # printed by the console that owns the live region (rich puts it above the display)
    assert "WARNING eurekaclaw.llm.local_backend: the prompt was trimmed" in buf.getvalue()
