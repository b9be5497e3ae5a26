"""The one secret scrubber, used by every log writer (llm_log.jsonl, events.jsonl, error lines,
logging): API keys of the known shapes, Authorization headers, `api_key=...` pairs, and any
secret the process registered (the configured keys themselves, whatever their shape)."""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

MASK = "[REDACTED]"

_PATTERNS = re.compile(
    r"sk-ant-[A-Za-z0-9_\-]{8,}"  # Anthropic
    r"|sk-or-v1-[A-Za-z0-9_\-]{8,}"  # OpenRouter
    r"|sk-proj-[A-Za-z0-9_\-]{8,}"  # OpenAI project keys
    r"|sk-[A-Za-z0-9_\-]{20,}"  # OpenAI and compatible servers
    r"|(?<=Bearer )[A-Za-z0-9._~+/=\-]{8,}"  # Authorization: Bearer <token>
    r"|(?<=bearer )[A-Za-z0-9._~+/=\-]{8,}"
    r"|(?i:(?<=api_key=)|(?<=api-key=)|(?<=apikey=)|(?<=x-api-key: )|(?<=\"api_key\": \"))[^\s&\"',;]{4,}"
)
_known: set[str] = set()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Scrub this exact value everywhere from now on (a configured key of any shape)."""
    if value and len(value) >= 6:
        with _lock:
            _known.add(value)


def scrub(text: str) -> str:
    if not text:
        return text
    for secret in sorted(_known, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    return _PATTERNS.sub(MASK, text)


def scrub_value(value: Any) -> Any:
    """Every string inside a JSON-like value, scrubbed."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: scrub_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_value(v) for v in value]
    return value


class ScrubFilter(logging.Filter):
    """A logging filter that scrubs each record's final message."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string is logging's problem, not ours
            return True
        clean = scrub(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True
