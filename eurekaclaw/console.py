"""The one place that writes to the terminal. Library code logs; the CLI and the progress
display print through these consoles (stdout for results, stderr for progress and errors), and
log records reach the terminal through the stderr console too."""

from __future__ import annotations

import logging
from functools import lru_cache

from rich.console import Console


@lru_cache(maxsize=1)
def out() -> Console:
    return Console(soft_wrap=True)


@lru_cache(maxsize=1)
def err() -> Console:
    return Console(stderr=True, soft_wrap=True)


class ConsoleLogHandler(logging.Handler):
    """Log records printed through the stderr console: while the live display runs, rich puts
    them above it instead of tearing it apart (a plain stream handler writes into it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from rich.text import Text

            err().print(
                Text(self.format(record), style="yellow" if record.levelno >= logging.WARNING else "dim"),
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
        except Exception:  # noqa: BLE001 - logging must never raise
            self.handleError(record)


def setup_logging(verbose: bool) -> None:
    """Route every log record through the stderr console, scrubbed of secrets; debug with
    --verbose, warnings otherwise (the chatty HTTP and SDK loggers only at info)."""
    root = logging.getLogger()
    if not any(isinstance(h, ConsoleLogHandler) for h in root.handlers):
        handler = ConsoleLogHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.WARNING)
    for noisy in ("httpx", "httpcore", "anthropic", "filelock", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.INFO if verbose else logging.WARNING)
    from eurekaclaw.redact import ScrubFilter

    for each in logging.getLogger().handlers:  # no secret in any log line
        if not any(isinstance(f, ScrubFilter) for f in each.filters):
            each.addFilter(ScrubFilter())
