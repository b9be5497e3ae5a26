"""Rate limits, Retry-After, backoff, circuit breaker and cache of the shared HTTP layer."""

from __future__ import annotations

import httpx
import pytest
from lit_helpers import S2, FakeClock, fixture, make_http

from eurekaclaw.tools.literature.http import (
    CircuitBreaker,
    HostPolicy,
    SourceUnavailable,
    retry_after_seconds,
)

URL = f"{S2}/paper/search"
HOST = "api.semanticscholar.org"


async def test_429_with_retry_after_then_success(respx_mock) -> None:
    clock = FakeClock()
    route = respx_mock.get(URL).mock(
        side_effect=[
            httpx.Response(429, text=fixture("s2_429.json"), headers={"Retry-After": "7"}),
            httpx.Response(200, text=fixture("s2_search.json")),
        ]
    )
    async with make_http(clock=clock) as http:
        response = await http.get(URL, params={"query": "turing"})
    assert response.status == 200 and route.call_count == 2
    assert clock.sleeps == [7.0]  # waited exactly what the server asked


async def test_429_without_retry_after_backs_off_exponentially_with_jitter(respx_mock) -> None:
    clock = FakeClock()
    respx_mock.get(URL).mock(
        side_effect=[httpx.Response(429, text=fixture("s2_429.json"))] * 2 + [httpx.Response(200, json={"data": []})]
    )
    async with make_http(clock=clock, rng=lambda: 0.0) as http:
        assert (await http.get(URL)).status == 200
    # base 1 s doubling, jitter factor in [0.5, 1] (rng 0 → 0.5)
    assert clock.sleeps == [0.5, 1.0]


async def test_retry_after_past_the_deadline_gives_up_without_waiting(respx_mock) -> None:
    clock = FakeClock()
    respx_mock.get(URL).mock(return_value=httpx.Response(429, headers={"Retry-After": "3600"}))
    async with make_http(clock=clock, deadline_s=60.0) as http:
        with pytest.raises(SourceUnavailable, match="throttled"):
            await http.get(URL)
    assert clock.sleeps == []


def test_retry_after_http_date() -> None:
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", wall=lambda: 1445412470.0) == 10.0
    assert retry_after_seconds("soon") is None


async def test_breaker_opens_after_repeated_5xx_and_recovers_after_cooldown(respx_mock) -> None:
    clock = FakeClock()
    policy = HostPolicy(min_interval_s=0, max_retries=10, breaker_failures=3, breaker_cooldown_s=60)
    route = respx_mock.get(URL).mock(return_value=httpx.Response(503, text="down"))
    async with make_http(clock=clock, policy=policy) as http:
        with pytest.raises(SourceUnavailable, match="circuit open"):
            await http.get(URL)
        assert route.call_count == 3
        assert http.breaker(HOST).state == "open"
        # while open: refused at once, no request sent
        with pytest.raises(SourceUnavailable, match="circuit open"):
            await http.get(URL, params={"q": "other"})
        assert route.call_count == 3
        assert HOST in http.unavailable_hosts()

        clock.advance(61)  # cool-down over: one probe is let through, it succeeds
        route.mock(return_value=httpx.Response(200, json={"data": []}))
        assert (await http.get(URL, params={"q": "third"})).status == 200
        assert http.breaker(HOST).state == "closed"
        assert http.unavailable_hosts() == {}


def test_breaker_failed_probe_reopens_with_longer_cooldown() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(failures=2, cooldown_s=10, clock=clock)
    breaker.record_failure("HTTP 500")
    assert breaker.allow()
    breaker.record_failure("HTTP 500")
    assert breaker.state == "open" and not breaker.allow()
    clock.advance(10)
    assert breaker.allow() and breaker.state == "half_open"
    assert not breaker.allow()  # only one probe at a time
    breaker.record_failure("HTTP 500")
    assert breaker.state == "open" and breaker.cooldown == 20
    clock.advance(10)
    assert not breaker.allow()
    clock.advance(10)
    assert breaker.allow()


async def test_connection_error_opens_the_breaker_at_once(respx_mock) -> None:
    clock = FakeClock()
    route = respx_mock.get(URL).mock(side_effect=httpx.ConnectError("Name or service not known"))
    async with make_http(clock=clock) as http:
        for _ in range(3):
            with pytest.raises(SourceUnavailable) as err:
                await http.get(URL)
            assert err.value.connect
    assert route.call_count == 1  # later calls never reached the network
    assert clock.sleeps == []  # and nobody waited


async def test_cache_hit_makes_no_request(respx_mock, tmp_path) -> None:
    route = respx_mock.get(URL).mock(return_value=httpx.Response(200, text=fixture("s2_search.json")))
    async with make_http(tmp_path / "cache") as http:
        first = await http.get(URL, params={"query": "turing", "limit": 5})
    async with make_http(tmp_path / "cache") as http:
        second = await http.get(URL, params={"limit": 5, "query": "turing"})  # same request
        assert http.requests_sent == 0
    assert route.call_count == 1
    assert second.from_cache and second.text == first.text
    assert list((tmp_path / "cache").rglob("*.json"))


async def test_failures_are_not_cached(respx_mock, tmp_path) -> None:
    route = respx_mock.get(URL).mock(
        side_effect=[httpx.Response(404, json={"error": "not found"}), httpx.Response(200, json={"data": []})]
    )
    async with make_http(tmp_path / "cache") as http:
        assert (await http.get(URL)).status == 404
        assert (await http.get(URL)).status == 200
    assert route.call_count == 2


async def test_expired_cache_is_refetched_but_serves_when_the_host_is_down(respx_mock, tmp_path) -> None:
    route = respx_mock.get(URL).mock(return_value=httpx.Response(200, json={"data": ["old"]}))
    async with make_http(tmp_path, cache_ttl_s=10) as http:
        await http.get(URL)
    http = make_http(tmp_path, cache_ttl_s=10)
    http.cache.wall = lambda: 1_700_000_000.0 + 11  # entry is now stale
    route.mock(side_effect=httpx.ConnectError("down"))
    async with http:
        stale = await http.get(URL)
    assert stale.from_cache and stale.json() == {"data": ["old"]}
    assert route.call_count == 2


async def test_offline_mode_sends_nothing_and_uses_the_cache(respx_mock, tmp_path) -> None:
    route = respx_mock.get(URL).mock(return_value=httpx.Response(200, json={"data": [1]}))
    async with make_http(tmp_path) as http:
        await http.get(URL, params={"q": "cached"})
    async with make_http(tmp_path, offline=True) as http:
        assert (await http.get(URL, params={"q": "cached"})).json() == {"data": [1]}
        with pytest.raises(SourceUnavailable, match="offline"):
            await http.get(URL, params={"q": "new"})
    assert route.call_count == 1


async def test_per_host_interval_spaces_requests(respx_mock) -> None:
    clock = FakeClock()
    arxiv = "https://export.arxiv.org/api/query"
    respx_mock.get(arxiv).mock(return_value=httpx.Response(200, text="<feed/>"))
    respx_mock.get(URL).mock(return_value=httpx.Response(200, json={}))
    policies = {"export.arxiv.org": HostPolicy(min_interval_s=3.0)}
    async with make_http(clock=clock, policies=policies) as http:
        for q in ("a", "b", "c"):
            await http.get(arxiv, params={"q": q})
        await http.get(URL)  # another host is not held back
    assert clock.sleeps == [3.0, 3.0]


async def test_unreadable_success_is_a_failure_and_is_not_cached(respx_mock, tmp_path) -> None:
    route = respx_mock.get(URL).mock(
        side_effect=[httpx.Response(200, text="<html>captive portal</html>"), httpx.Response(200, json={"data": []})]
    )
    async with make_http(tmp_path) as http:
        with pytest.raises(SourceUnavailable, match="unreadable json"):
            await http.get(URL, expect="json")
        assert (await http.get(URL, expect="json")).json() == {"data": []}
    assert route.call_count == 2


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (529, {"retry-after-ms": "1500"}, 1.5),  # the shared parser reads retry-after-ms too
        (408, {"Retry-After": "2"}, 2.0),
        (409, {}, 0.5),
    ],
)
async def test_the_shared_retry_policy_covers_408_409_529_and_retry_after_ms(
    respx_mock, status, headers, expected
) -> None:
    clock = FakeClock()
    route = respx_mock.get(URL).mock(
        side_effect=[httpx.Response(status, headers=headers), httpx.Response(200, json={"data": []})]
    )
    async with make_http(clock=clock, rng=lambda: 0.0) as http:
        assert (await http.get(URL)).status == 200
    assert route.call_count == 2 and clock.sleeps == [expected]


@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_definite_4xx_are_never_retried(respx_mock, status) -> None:
    route = respx_mock.get(URL).mock(return_value=httpx.Response(status, json={}))
    async with make_http(clock=FakeClock()) as http:
        assert (await http.get(URL)).status == status
    assert route.call_count == 1
