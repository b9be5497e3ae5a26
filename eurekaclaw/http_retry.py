"""The one HTTP retry policy, used by the LLM session client and the literature clients alike.

What is retried: 408, 409, 429, every 5xx (529 "overloaded" included), connection failures and
timeouts, and — decided by the caller, which knows the body — a 200 whose body is not JSON, that
carries an error, or that has no choices. Never 400/401/403/404 or another 4xx.

How long to wait: the server's `retry-after-ms`, or `Retry-After` in seconds or as an HTTP date,
when given; else exponential backoff from `base_s` with jitter. Every wait is capped by
`max_wait_s` (LLM_RETRY_MAX_S), the waits of one call together by `max_total_s`, and the number of
retries by `max_retries`: one call makes at most `max_retries + 1` requests.

Only one layer retries: backends make single attempts (the Anthropic SDK's own retries are off).
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

RETRYABLE_4XX = frozenset({408, 409, 429})


def retryable_status(status: int) -> bool:
    """408/409/429 and every 5xx (529 included) are worth another attempt; other 4xx never."""
    return status in RETRYABLE_4XX or 500 <= status <= 599


def status_reason(status: int) -> str:
    """A short, stable label for the record: rate_limited, overloaded, http_503, ..."""
    if status == 429:
        return "rate_limited"
    if status == 529:
        return "overloaded"
    return f"http_{status}"


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `Retry-After` as seconds or an HTTP date."""
    if not headers:
        return None
    lowered = {str(k).lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    value = str(value).strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, float(email.utils.mktime_tz(parsed)) - now)


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_s: float = 1.0
    max_wait_s: float = 300.0  # one wait, the server's Retry-After included
    max_total_s: float = 900.0  # all waits of one call together
    jitter: bool = True
    # True: a longer Retry-After is cut to max_wait_s (LLM calls); False: a server asking for a
    # longer wait than max_wait_s / the total is given up on instead (polite literature clients)
    cap_retry_after: bool = True

    def backoff(self, retry_index: int, rng: Callable[[], float] = random.random) -> float:
        ceiling = min(self.max_wait_s, self.base_s * 2**retry_index)
        return ceiling * (0.5 + rng() / 2) if self.jitter else ceiling

    def next_wait(
        self,
        retries_done: int,
        waited_s: float,
        retry_after: float | None,
        rng: Callable[[], float] = random.random,
    ) -> float | None:
        """Seconds to wait before the next attempt, or None when this call should give up."""
        if retries_done >= self.max_retries:
            return None
        if retry_after is not None and not self.cap_retry_after:
            wait = max(0.0, retry_after)
        else:
            wait = retry_after if retry_after is not None else self.backoff(retries_done, rng)
            wait = min(max(0.0, wait), self.max_wait_s)
        if waited_s + wait > self.max_total_s + 1e-9:
            return None
        return wait
