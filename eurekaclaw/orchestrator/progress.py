"""What the terminal shows while a run works: stage list, elapsed time, tokens and dollars,
and the lemma DAG as a tree whose states update live.

Live mode (rich.Live) on a terminal; plain timestamped lines when stderr is not a terminal;
with --json the progress still goes to stderr so stdout stays machine-readable.
"""

from __future__ import annotations

import time
from typing import Any

from rich.console import Group
from rich.live import Live
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from eurekaclaw.console import err
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
        text = claim_plain(node.claim) if node.statement_source == "claim" and node.claim else (
            node.informal or node.statement)
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


class RunUI:
    def __init__(self, *, live: bool | None = None, quiet: bool = False) -> None:
        console = err()
        self.console = console
        self.quiet = quiet
        self.live_mode = console.is_terminal and not quiet if live is None else live
        self._live: Live | None = None
        self._start = time.monotonic()
        self.session_id = ""
        self.pipeline: PipelineState | None = None
        self.theory: TheoryState | None = None
        self.lemma_states: dict[str, dict[str, Any]] = {}
        self.tokens = 0
        self.cost: float | None = 0.0
        self.current = ""

    # --- lifecycle --------------------------------------------------------------------------
    def start(self, session_id: str, headline: str) -> None:
        self.session_id = session_id
        self._start = time.monotonic()
        self.line(f"session {session_id}: {headline}")
        if self.live_mode:
            self._live = Live(self._render(), console=self.console, refresh_per_second=4, transient=False)
            self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.stop()
            self._live = None

    # --- updates -----------------------------------------------------------------------------
    def line(self, text: str, style: str = "") -> None:
        if self.quiet:
            return
        elapsed = time.monotonic() - self._start
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
            self._live.update(self._render())

    def _render(self) -> Group:
        elapsed = time.monotonic() - self._start
        cost = "cost unknown" if self.cost is None else f"${self.cost:.4f}"
        head = Text(
            f"EurekaClaw {self.session_id}  stage: {self.current or '-'}  "
            f"elapsed {elapsed:.0f}s  tokens {self.tokens:,}  {cost}",
            style="bold",
        )
        parts: list[Any] = [head]
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
    def confirm(self, question: str) -> bool:
        """Ask on the terminal; end of input counts as yes (so piped runs continue)."""
        self.stop()
        try:
            answer = self.console.input(f"{question} [Y/n] ")
        except EOFError:
            return True
        finally:
            if self.live_mode:
                self._live = Live(self._render(), console=self.console, refresh_per_second=4)
                self._live.start()
        return answer.strip().lower() not in {"n", "no", "q", "quit"}
