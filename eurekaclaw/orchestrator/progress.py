"""What the terminal shows while a run works: stage list, a clock that ticks, the model calls
running (role, lemma, stage, for how long, and the tokens received so far when the reply
streams: eurekaclaw/llm/streaming.py), tokens and dollars, and the lemma DAG as a tree
whose states update live. Log lines go through the same console, above the live region.

Live mode (rich.Live) on a terminal; plain timestamped lines when stderr is not a terminal;
with --json the progress still goes to stderr so stdout stays machine-readable.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from rich.console import Group
from rich.live import Live
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from eurekaclaw.console import err
from eurekaclaw.llm.streaming import watching
from eurekaclaw.types.artifacts import Claim, TheoryState
from eurekaclaw.types.tasks import PipelineState

STAGE_STYLE = {
    "pending": ("·", "dim"),
    "running": ("▶", "bold cyan"),
    "completed": ("✓", "green"),
    "skipped": ("–", "yellow"),
    "failed": ("✗", "red"),
    "absent": ("∅", "dim"),
    "interrupted": ("‖", "magenta"),
}
LEMMA_STYLE = {
    "pending": ("○", "dim"),
    "in_progress": ("◐", "cyan"),
    "checking": ("◑", "cyan"),
    "reviewing": ("◕", "cyan"),
    "proved": ("✓", "green"),
    "failed": ("✗", "red"),
    "refuted": ("⊥", "bold red"),
}


def claim_plain(claim: Claim) -> str:
    """What the checkers checked, as plain text (the lemma's statement was rendered from it)."""
    from eurekaclaw.verify.render import claim_plain as render

    try:
        return render(claim)
    except Exception:  # the display must not fail; the claim's own text says the same
        return claim.conclusion


def lemma_tree(state: TheoryState, live_states: dict[str, dict[str, Any]] | None = None) -> Tree:
    live_states = live_states or {}
    title = Text(f"Theorem ({state.status})", style="bold")
    tree = Tree(title)
    root = state.root_id()
    if not state.lemma_dag:
        return tree

    def label(lemma_id: str) -> Text:
        node = state.lemma_dag[lemma_id]
        info = live_states.get(lemma_id, {})
        status = info.get("state") or node.status
        icon, style = LEMMA_STYLE.get(status, ("?", ""))
        record = state.proven_lemmas.get(lemma_id)
        extra = ""
        if record is not None:
            who = ", self-review" if record.self_review and record.verification_level == "reviewed" else ""
            extra = f" [{record.verification_level}{who}]"
        elif info.get("attempt"):
            extra = f" (attempt {info['attempt']})"
        text = (
            claim_plain(node.claim)
            if node.statement_source == "claim" and node.claim
            else (node.informal or node.statement)
        )
        short = text if len(text) <= 70 else text[:67] + "…"
        return Text(f"{icon} {lemma_id}{extra}: {short}", style=style)

    def add(parent: Tree, lemma_id: str, path: tuple[str, ...]) -> None:
        branch = parent.add(label(lemma_id))
        for dep in state.lemma_dag[lemma_id].dependencies:
            if dep in state.lemma_dag and dep not in path:
                add(branch, dep, path + (dep,))

    if root:
        add(tree, root, (root,))
    else:
        for lemma_id in state.lemma_dag:
            tree.add(label(lemma_id))
    return tree


def elapsed_text(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, sec = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{sec:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class WatchedBackend:
    """The backend as the run sees it, telling the display which call is running and since when
    (role, lemma, stage). Everything else is the wrapped backend's own."""

    def __init__(self, backend: Any, ui: RunUI) -> None:
        self._backend = backend
        self._ui = ui

    @property
    def name(self) -> str:
        return str(self._backend.name)

    @property
    def wrapped(self) -> Any:
        return self._backend

    def model_for(self, tier: Any) -> str:
        return str(self._backend.model_for(tier))

    async def complete(self, request: Any) -> Any:
        call = self._ui.call_started(
            getattr(request, "role", ""), getattr(request, "lemma_id", None), getattr(request, "stage", None)
        )
        # only a display that shows streamed tokens asks for them (LLM_STREAM=auto): the live
        # terminal, or a browser following the session (RunUI.stream_tokens)
        wanted = self._ui.live_mode or self._ui.stream_tokens
        watch = watching(lambda tokens: self._ui.call_tokens(call, tokens)) if wanted else nullcontext()
        response = None
        try:
            with watch:
                response = await self._backend.complete(request)
                return response
        finally:
            usage = getattr(response, "usage", None)
            self._ui.call_finished(call, getattr(usage, "output_tokens", None))

    def __getattr__(self, item: str) -> Any:
        return getattr(self._backend, item)


class RunUI:
    MAX_CALLS_SHOWN = 4
    # a running call's token count goes to the session log at most once a second (the terminal
    # redraws 4 times a second from memory; the log is read by the browser, never per token)
    TOKEN_EVENT_INTERVAL_S = 1.0

    def __init__(
        self, *, live: bool | None = None, quiet: bool = False, clock: Callable[[], float] = time.monotonic
    ) -> None:
        console = err()
        self.console = console
        self.quiet = quiet
        self.live_mode = console.is_terminal and not quiet if live is None else live
        self._live: Live | None = None
        self._clock = clock
        self._start = clock()
        self.session_id = ""
        self.pipeline: PipelineState | None = None
        self.theory: TheoryState | None = None
        self.lemma_states: dict[str, dict[str, Any]] = {}
        self.tokens = 0
        self.cost: float | None = 0.0
        self.current = ""
        # model calls in flight: id -> role, lemma, stage, start time
        self.calls: dict[int, dict[str, Any]] = {}
        self._call_ids = itertools.count(1)
        # whether streamed token counts are wanted when the terminal is not live (a browser)
        self.stream_tokens = False
        # the session log (SessionDir.event): model calls are written there as "llm_call" events
        # beside the lemma and stage events, so the browser sees what the terminal sees
        self._record: Callable[..., None] | None = None

    def record_to(self, sink: Callable[..., None] | None) -> None:
        """Write this display's model-call events to `sink` (the session's event log) too."""
        self._record = sink

    def _write(self, call_id: int, phase: str, **data: Any) -> None:
        if self._record is None:
            return
        try:
            self._record("llm_call", call=call_id, phase=phase, **data)
        except OSError:  # a full or read-only disk costs the browser a line, never the run
            pass

    def _new_live(self) -> Live:
        # get_renderable: the display is rebuilt at every refresh, so the clock and the running
        # calls' times move even when no event arrives (a model call can take minutes)
        return Live(console=self.console, refresh_per_second=4, transient=False, get_renderable=self._render_safely)

    # --- lifecycle --------------------------------------------------------------------------
    def start(self, session_id: str, headline: str) -> None:
        self.session_id = session_id
        self._start = self._clock()
        self.line(f"session {session_id}: {headline}")
        if self.live_mode:
            self._live = self._new_live()
            self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.refresh()
            self._live.stop()
            self._live = None

    # --- model calls ---------------------------------------------------------------------------
    def watch(self, backend: Any) -> Any:
        """`backend`, reporting its calls to this display (None stays None)."""
        if backend is None or isinstance(backend, WatchedBackend):
            return backend
        return WatchedBackend(backend, self)

    def call_started(self, role: str, lemma_id: str | None = None, stage: str | None = None) -> int:
        call_id = next(self._call_ids)
        self.calls[call_id] = {"role": role or "model", "lemma_id": lemma_id, "stage": stage, "since": self._clock()}
        self._write(call_id, "start", role=role or "model", lemma_id=lemma_id, stage=stage)
        self._refresh()
        return call_id

    def call_tokens(self, call_id: int, tokens: int) -> None:
        """Tokens received so far by a streaming call; the next frame shows them (the stream
        reports at most ~10 times a second and the display redraws 4 times, so no refresh here)."""
        call = self.calls.get(call_id)
        if call is None:
            return
        call["tokens"] = tokens
        now = self._clock()
        if now - call.get("logged", call["since"]) >= self.TOKEN_EVENT_INTERVAL_S:
            call["logged"] = now
            self._write(call_id, "tokens", tokens=tokens)

    def call_finished(self, call_id: int, tokens: int | None = None) -> None:
        call = self.calls.pop(call_id, None)
        if call is not None:
            count = tokens if tokens else call.get("tokens")
            self._write(call_id, "end", role=call["role"], lemma_id=call["lemma_id"], tokens=count)
        self._refresh()

    # --- updates -----------------------------------------------------------------------------
    def line(self, text: str, style: str = "") -> None:
        if self.quiet:
            return
        elapsed = self._clock() - self._start
        if self._live is not None:
            self._live.console.print(Text(f"[{elapsed:6.0f}s] {text}", style=style))
        else:
            self.console.print(Text(f"[{elapsed:6.0f}s] {text}", style=style))

    def set_pipeline(self, pipeline: PipelineState) -> None:
        self.pipeline = pipeline
        self._refresh()

    def set_theory(self, state: TheoryState | None) -> None:
        self.theory = state
        self._refresh()

    def usage(self, tokens: int, cost: float | None) -> None:
        """`cost` None: some call had no price, so the dollars spent are unknown."""
        self.tokens, self.cost = tokens, cost
        self._refresh()

    def event(self, kind: str, **data: Any) -> None:
        if kind == "lemma" and data.get("lemma_id"):
            self.lemma_states[data["lemma_id"]] = data
            if not self.live_mode:
                level = f" [{data['level']}]" if data.get("level") else ""
                attempt = f" attempt {data['attempt']}" if data.get("attempt") else ""
                self.line(f"  lemma {data['lemma_id']}: {data.get('state')}{attempt}{level}")
        elif kind == "stage":
            self.current = data.get("name", self.current)
            if data.get("status") not in (None, "running") or not self.live_mode:
                reason = f" — {data['reason']}" if data.get("reason") else ""
                self.line(f"stage {data.get('name')}: {data.get('status')}{reason}")
        elif data.get("message"):
            self.line(f"  {kind}: {data['message']}")
        self._refresh()

    # --- rendering ---------------------------------------------------------------------------
    def _refresh(self) -> None:
        if self._live is not None:
            self._live.refresh()

    def _calls_view(self, now: float) -> list[Text]:
        running = sorted(list(self.calls.values()), key=lambda c: c["since"])
        rows = []
        for call in running[: self.MAX_CALLS_SHOWN]:
            where = f" · lemma {call['lemma_id']}" if call.get("lemma_id") else ""
            stage = f" · {call['stage']}" if call.get("stage") else ""
            count = call.get("tokens")
            tokens = f" · {count:,} token{'' if count == 1 else 's'}" if count is not None else ""
            rows.append(
                Text(
                    f"  ⟳ model call: {call['role']}{where}{stage} · {elapsed_text(now - call['since'])}{tokens}",
                    style="cyan",
                )
            )
        if len(running) > self.MAX_CALLS_SHOWN:
            rows.append(Text(f"  … and {len(running) - self.MAX_CALLS_SHOWN} more calls running", style="dim"))
        return rows

    def _render_safely(self) -> Group:
        """The refresh thread renders while the run changes the state it shows: a dict that
        changed size mid-iteration costs one frame (the last good one), never the display."""
        try:
            self._last_frame = self._render()
        except RuntimeError:
            pass
        return getattr(self, "_last_frame", None) or Group()

    def _render(self) -> Group:
        now = self._clock()
        cost = "cost unknown" if self.cost is None else f"${self.cost:.4f}"
        head = Text(
            f"EurekaClaw {self.session_id}  stage: {self.current or '-'}  "
            f"elapsed {elapsed_text(now - self._start)}  tokens {self.tokens:,}  {cost}",
            style="bold",
        )
        parts: list[Any] = [head, *self._calls_view(now)]
        if self.pipeline is not None:
            table = Table.grid(padding=(0, 1))
            for rec in self.pipeline.stages:
                icon, style = STAGE_STYLE.get(rec.status, ("?", ""))
                table.add_row(Text(icon, style=style), Text(rec.name, style=style), Text(rec.reason, style="dim"))
            parts.append(table)
        if self.theory is not None and self.theory.lemma_dag:
            parts.append(lemma_tree(self.theory, self.lemma_states))
        return Group(*parts)

    # --- gates ---------------------------------------------------------------------------------
    def can_ask(self) -> bool:
        """Whether a gate question can be answered: stdin must be a terminal (a run under cron,
        nohup, CI or a pipe has no one to ask and must never wait)."""
        try:
            return sys.stdin is not None and sys.stdin.isatty()
        except (ValueError, OSError):  # stdin closed
            return False

    def confirm(self, question: str) -> bool:
        """Ask on the terminal; end of input counts as yes (so piped runs continue)."""
        self.stop()
        try:
            answer = self.console.input(f"{question} [Y/n] ")
        except EOFError:
            return True
        finally:
            if self.live_mode:
                self._live = self._new_live()
                self._live.start()
        return answer.strip().lower() not in {"n", "no", "q", "quit"}
