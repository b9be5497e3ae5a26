"""Shared helpers for the literature tests: recorded fixtures, a fake clock, quick clients."""

from __future__ import annotations

from pathlib import Path

import httpx

from eurekaclaw.tools.literature.http import HostPolicy, LiteratureHttp
from eurekaclaw.tools.literature.service import LiteratureService

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "literature"

ARXIV = "https://export.arxiv.org/api/query"
S2 = "https://api.semanticscholar.org/graph/v1"
OPENALEX = "https://api.openalex.org"
CROSSREF = "https://api.crossref.org"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


class FakeClock:
    """Monotonic time that only moves when the code under test sleeps (or a test says so)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make_http(
    cache_dir: Path | None = None,
    *,
    clock: FakeClock | None = None,
    policy: HostPolicy | None = None,
    policies: dict[str, HostPolicy] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    **kwargs,
) -> LiteratureHttp:
    clock = clock or FakeClock()
    options = {"wall": lambda: 1_700_000_000.0, "rng": lambda: 1.0, **kwargs}
    return LiteratureHttp(
        cache_dir=cache_dir,
        default_policy=policy
        or HostPolicy(min_interval_s=0.0, max_retries=3, breaker_failures=3, breaker_cooldown_s=60.0),
        policies=policies,
        clock=clock,
        sleep=clock.sleep,
        transport=transport,
        **options,
    )


def make_service(cache_dir: Path | None = None, **kwargs) -> LiteratureService:
    return LiteratureService(make_http(cache_dir, **kwargs))
