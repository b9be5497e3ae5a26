"""Streamed replies: when a backend streams, and how the tokens it receives reach the display.

LLM_STREAM decides: `true` always streams, `false` never (one request, one whole reply), `auto`
(the default) streams when someone watches the running call, which is the live terminal display
(eurekaclaw/orchestrator/progress.py): it installs a token sink around each call with
`watching(sink)`. A streaming backend feeds the reply's text to a `TokenMeter`, which passes the
count of tokens received so far to that sink, at most ten times a second and once at the end.

Streaming changes how a reply arrives, nothing else: the backend assembles the same LLMResponse
(text, tool calls, structured answer, usage) that the whole reply would have been, so the ledger,
llm_log.jsonl, structured-output parsing and redaction see no difference. A stream that breaks off
before its end is a retryable failure with reason `stream_cut`, retried by the session client.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from eurekaclaw.errors import LLMRetryableError
from eurekaclaw.llm.types import Usage

TokenSink = Callable[[int], None]
log = logging.getLogger(__name__)

# Tokens are counted from text when the backend does not know them exactly; ~4 characters make
# a token in English and LaTeX alike, close enough for a progress display.
CHARS_PER_TOKEN = 4
REPORT_INTERVAL_S = 0.1  # at most ~10 display updates a second

_sink: ContextVar[TokenSink | None] = ContextVar("eurekaclaw_token_sink", default=None)


@contextmanager
def watching(sink: TokenSink | None) -> Iterator[None]:
    """Report the tokens of the calls made inside this block (in this task) to `sink`."""
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)


def wants_stream(setting: str) -> bool:
    """Whether a call made now should stream, for LLM_STREAM = true | false | auto."""
    if setting == "true":
        return True
    if setting == "false":
        return False
    return _sink.get() is not None


class TokenMeter:
    """Counts a streamed reply's tokens as they arrive and reports the running total."""

    def __init__(
        self,
        sink: TokenSink | None = None,
        *,
        interval_s: float = REPORT_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sink = sink if sink is not None else _sink.get()
        self.interval_s = interval_s
        self._clock = clock
        self._last: float | None = None
        self.exact = 0  # tokens the backend counted itself
        self.chars = 0  # text of chunks whose tokens were not counted
        self.chunks = 0

    @property
    def tokens(self) -> int:
        return self.exact + math.ceil(self.chars / CHARS_PER_TOKEN)

    def add(self, text: str, tokens: int | None = None) -> None:
        """One chunk of the reply; `tokens` when the backend knows how many it holds."""
        self.chunks += 1
        if tokens is None:
            self.chars += len(text)
        else:
            self.exact += tokens
        now = self._clock()
        if self._last is None or now - self._last >= self.interval_s:
            self._report(now)

    def finish(self) -> None:
        """The stream ended (whole or cut): the last count always reaches the display."""
        self._report(self._clock())

    def _report(self, now: float) -> None:
        self._last = now
        if self.sink is None:
            return
        try:
            self.sink(self.tokens)
        except Exception as exc:  # a display that broke must not cost the reply: stop showing this call
            log.warning("the token display failed (%s); this call's progress is no longer shown", exc)
            self.sink = None


def stream_cut(where: str, detail: str, billed: Usage | None = None) -> LLMRetryableError:
    """The failure of a stream that stopped before its end; `billed` is what it may have cost."""
    return LLMRetryableError(f"{where}: the streamed reply broke off ({detail})", reason="stream_cut", usage=billed)
