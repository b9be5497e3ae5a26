"""Shared async HTTP for the literature services.

One `LiteratureHttp` per run. Per host it keeps a minimum interval between requests (arXiv asks
for one every 3 s), a circuit breaker, and retries by the project's one retry policy
(eurekaclaw/http_retry.py: 408/409/429/5xx, exponential backoff with jitter, Retry-After in
seconds, as an HTTP date or `retry-after-ms`), bounded by attempts and by the request deadline. Successful answers are cached on disk under `$EUREKACLAW_DIR/cache/http`
keyed by the request; failures are never cached, so a later run tries again.

Connection failures open a host's breaker at once: when the machine is offline every further
request to that host fails immediately instead of backing off, so a survey without network ends
in seconds. Clock, sleep and randomness are injectable so tests never wait.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import time
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlencode, urlsplit

import httpx

from eurekaclaw.http_retry import RetryPolicy, parse_retry_after, retryable_status
from eurekaclaw.store.files import atomic_write_json, read_json

log = logging.getLogger(__name__)

USER_AGENT = "eurekaclaw/0.1 (machine-assisted mathematical research)"
MAX_COOLDOWN_S = 600.0


BodyKind = Literal["json", "xml"]


def readable(text: str, kind: BodyKind) -> bool:
    try:
        if kind == "json":
            json.loads(text)
        else:
            ET.fromstring(text.encode("utf-8"))
    except (ValueError, ET.ParseError):
        return False
    return True


class SourceUnavailable(Exception):
    """A service could not answer: offline, breaker open, throttled past the deadline, 5xx."""

    def __init__(self, host: str, reason: str, *, connect: bool = False) -> None:
        super().__init__(f"{host}: {reason}")
        self.host = host
        self.reason = reason
        self.connect = connect  # True when the host could not be reached at all


@dataclass
class HostPolicy:
    min_interval_s: float = 0.0
    max_retries: int = 3
    breaker_failures: int = 3
    breaker_cooldown_s: float = 120.0
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0


@dataclass
class HttpResponse:
    status: int
    text: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    from_cache: bool = False

    def json(self) -> Any:
        return json.loads(self.text)


class CircuitBreaker:
    """closed → (N consecutive failures, or one connection failure) → open → (cool-down) →
    half_open: one probe; success closes, failure reopens with a doubled cool-down."""

    def __init__(self, failures: int, cooldown_s: float, clock: Callable[[], float]) -> None:
        self.threshold = failures
        self.base_cooldown = cooldown_s
        self.cooldown = cooldown_s
        self.clock = clock
        self.state = "closed"
        self.consecutive = 0
        self.opened_at = 0.0
        self.last_reason = ""
        self.connect_failure = False
        self._probe_in_flight = False
        self._probe_at = 0.0

    def allow(self) -> bool:
        if self.state == "closed":
            return True
        if self.state == "open" and self.clock() - self.opened_at >= self.cooldown:
            self.state = "half_open"
            self._probe_in_flight = False
        # A probe that never reported back (its task was cancelled) must not block the host.
        stale_probe = self._probe_in_flight and self.clock() - self._probe_at >= self.cooldown
        if self.state == "half_open" and (not self._probe_in_flight or stale_probe):
            self._probe_in_flight = True
            self._probe_at = self.clock()
            return True
        return False

    def record_success(self) -> None:
        self.state = "closed"
        self.consecutive = 0
        self.cooldown = self.base_cooldown
        self.connect_failure = False
        self._probe_in_flight = False

    def record_failure(self, reason: str, *, connect: bool = False) -> None:
        self.consecutive += 1
        self.last_reason = reason
        self.connect_failure = connect
        if self.state == "half_open":
            self.cooldown = min(MAX_COOLDOWN_S, max(self.cooldown * 2, 1.0))
            self._open()
        elif connect or self.consecutive >= self.threshold:
            self._open()

    def _open(self) -> None:
        self.state = "open"
        self.opened_at = self.clock()
        self._probe_in_flight = False


class HttpCache:
    """One JSON file per request under `root`; entries older than `ttl_s` are stale."""

    def __init__(self, root: Path, ttl_s: float, wall: Callable[[], float] = time.time) -> None:
        self.root = Path(root)
        self.ttl_s = ttl_s
        self.wall = wall

    @staticmethod
    def key(method: str, url: str, params: dict[str, Any] | None, body: Any) -> str:
        query = urlencode(sorted((k, str(v)) for k, v in (params or {}).items()))
        raw = json.dumps([method.upper(), url, query, body], sort_keys=True, default=str)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str, *, allow_stale: bool = False) -> HttpResponse | None:
        entry = read_json(self.path(key), None)
        if not isinstance(entry, dict) or "text" not in entry:
            return None
        fresh = self.wall() - float(entry.get("stored_at", 0.0)) <= self.ttl_s
        if not fresh and not allow_stale:
            return None
        return HttpResponse(
            status=int(entry.get("status", 200)),
            text=entry["text"],
            url=entry.get("url", ""),
            headers=entry.get("headers", {}),
            from_cache=True,
        )

    def put(self, key: str, response: HttpResponse) -> None:
        try:
            atomic_write_json(
                self.path(key),
                {
                    "status": response.status,
                    "url": response.url,
                    "headers": response.headers,
                    "text": response.text,
                    "stored_at": self.wall(),
                },
            )
        except OSError as exc:  # a full disk must not fail the survey
            log.warning("could not write the HTTP cache: %s", exc)


def retry_after_seconds(value: str | None, wall: Callable[[], float] = time.time) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP date (the shared parser)."""
    return parse_retry_after({"retry-after": value} if value else None, now=wall())


class LiteratureHttp:
    def __init__(
        self,
        *,
        cache_dir: Path | None,
        cache_ttl_s: float = 7 * 86_400.0,
        policies: dict[str, HostPolicy] | None = None,
        default_policy: HostPolicy | None = None,
        timeout_s: float = 20.0,
        deadline_s: float = 60.0,
        offline: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.cache = HttpCache(cache_dir, cache_ttl_s, wall) if cache_dir is not None else None
        self.policies = policies or {}
        self.default_policy = default_policy or HostPolicy()
        self.deadline_s = deadline_s
        self.offline = offline
        self.clock = clock
        self.wall = wall
        self.sleep = sleep
        self.rng = rng
        self.requests_sent = 0
        self._breakers: dict[str, CircuitBreaker] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._next_slot: dict[str, float] = {}
        self._client = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(timeout_s, connect=min(5.0, timeout_s)),
            headers={"User-Agent": USER_AGENT},
            follow_redirects=True,
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> LiteratureHttp:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # --- per-host state ---------------------------------------------------------------------
    def policy(self, host: str) -> HostPolicy:
        return self.policies.get(host, self.default_policy)

    def breaker(self, host: str) -> CircuitBreaker:
        if host not in self._breakers:
            p = self.policy(host)
            self._breakers[host] = CircuitBreaker(p.breaker_failures, p.breaker_cooldown_s, self.clock)
        return self._breakers[host]

    async def _wait_for_slot(self, host: str) -> None:
        interval = self.policy(host).min_interval_s
        if interval <= 0:
            return
        lock = self._locks.setdefault(host, asyncio.Lock())
        async with lock:
            now = self.clock()
            start = max(now, self._next_slot.get(host, now))
            if start > now:
                await self.sleep(start - now)
            self._next_slot[host] = start + interval

    def retry_policy(self, host: str) -> RetryPolicy:
        p = self.policy(host)
        return RetryPolicy(
            max_retries=p.max_retries,
            base_s=p.backoff_base_s,
            max_wait_s=p.backoff_max_s,
            max_total_s=self.deadline_s,
            cap_retry_after=False,
        )

    def _backoff(self, host: str, attempt: int) -> float:
        return self.retry_policy(host).backoff(attempt, self.rng)  # jitter spreads parallel callers

    # --- requests ----------------------------------------------------------------------------
    async def get(
        self,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        cache: bool = True,
        expect: BodyKind | None = None,
    ) -> HttpResponse:
        return await self.request("GET", url, params=params, headers=headers, cache=cache, expect=expect)

    async def post_json(
        self,
        url: str,
        body: Any,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        cache: bool = True,
        expect: BodyKind | None = None,
    ) -> HttpResponse:
        return await self.request("POST", url, params=params, headers=headers, body=body, cache=cache, expect=expect)

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        body: Any = None,
        cache: bool = True,
        expect: BodyKind | None = None,
    ) -> HttpResponse:
        """A 2xx or a definite 4xx answer; SourceUnavailable when the host cannot answer.
        With `expect`, a 2xx body that does not parse as that kind counts as a failure (a
        proxy's HTML page must neither reach a parser nor the cache)."""
        host = urlsplit(url).hostname or url
        store = self.cache if cache else None
        key = HttpCache.key(method, url, params, body) if store is not None else None
        if store is not None and key is not None:
            hit = store.get(key)
            if hit is not None:
                return hit
        try:
            response = await self._send(method, url, host, params, headers, body)
            if expect and 200 <= response.status < 300 and not readable(response.text, expect):
                self.breaker(host).record_failure(f"unreadable {expect} answer")
                raise SourceUnavailable(host, f"answered with unreadable {expect}")
        except SourceUnavailable:
            stale = store.get(key, allow_stale=True) if store is not None and key is not None else None
            if stale is not None:
                log.info("%s unavailable; using a stale cached answer", host)
                return stale
            raise
        if store is not None and key is not None and 200 <= response.status < 300:
            store.put(key, response)
        return response

    async def _send(
        self,
        method: str,
        url: str,
        host: str,
        params: dict[str, Any] | None,
        headers: dict[str, str] | None,
        body: Any,
    ) -> HttpResponse:
        if self.offline:
            raise SourceUnavailable(host, "offline mode, EUREKACLAW_OFFLINE is set", connect=True)
        breaker = self.breaker(host)
        policy = self.policy(host)
        deadline = self.clock() + self.deadline_s
        attempt = 0
        while True:
            if not breaker.allow():
                raise SourceUnavailable(
                    host,
                    f"circuit open after: {breaker.last_reason or 'repeated failures'}",
                    connect=breaker.connect_failure,
                )
            await self._wait_for_slot(host)
            try:
                self.requests_sent += 1
                raw = await self._client.request(method, url, params=params, headers=headers, json=body)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                breaker.record_failure(f"cannot connect ({type(exc).__name__})", connect=True)
                raise SourceUnavailable(host, f"cannot connect ({type(exc).__name__})", connect=True) from None
            except httpx.TransportError as exc:
                reason = f"{type(exc).__name__}"
                breaker.record_failure(reason)
                hinted = None
            else:
                response = HttpResponse(
                    status=raw.status_code,
                    text=raw.text,
                    url=str(raw.url),
                    headers={
                        k.lower(): v for k, v in raw.headers.items() if k.lower() in ("content-type", "retry-after")
                    },
                )
                if not retryable_status(raw.status_code):
                    breaker.record_success()
                    return response
                reason = "throttled (HTTP 429)" if raw.status_code == 429 else f"HTTP {raw.status_code}"
                breaker.record_failure(reason)
                hinted = parse_retry_after(raw.headers, now=self.wall())
            retry = self.retry_policy(host)
            delay = hinted if hinted is not None else retry.backoff(attempt, self.rng)
            attempt += 1
            if attempt > policy.max_retries:
                raise SourceUnavailable(host, f"{reason}; gave up after {attempt} attempts")
            if self.clock() + delay > deadline:
                raise SourceUnavailable(host, f"{reason}; retry in {delay:.0f}s is past the deadline")
            log.info("%s: %s; retrying in %.1fs", host, reason, delay)
            await self.sleep(delay)

    def unavailable_hosts(self) -> dict[str, str]:
        """Hosts whose breaker is not closed, with the last reason."""
        return {h: b.last_reason for h, b in self._breakers.items() if b.state != "closed"}
