"""The service across sources: parallel search with a source down, fetching exact ids, tools."""

from __future__ import annotations

import json

import httpx
from lit_helpers import ARXIV, CROSSREF, OPENALEX, S2, fixture, make_service

from eurekaclaw.config import load_settings
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.tools.literature.service import LiteratureService, build_http
from eurekaclaw.tools.literature.tools import PaperPool, register_literature_tools


async def test_search_carries_on_when_a_source_is_throttled(respx_mock) -> None:
    respx_mock.get(ARXIV).mock(return_value=httpx.Response(200, text=fixture("arxiv_search_testing.xml")))
    s2 = respx_mock.get(f"{S2}/paper/search").mock(return_value=httpx.Response(429, text=fixture("s2_429.json")))
    respx_mock.get(f"{OPENALEX}/works").mock(
        return_value=httpx.Response(200, text=fixture("openalex_works_search.json"))
    )
    service = make_service()
    async with service.http:
        papers = await service.search("testing", limit=10)
    assert len(papers) == 12
    # interleaved by rank: arXiv's first, OpenAlex's first, arXiv's second, ...
    assert papers[0].sources == ["arxiv"] and papers[1].sources == ["openalex"]
    assert s2.call_count == 3  # the breaker opened after three 429s
    (label,) = service.unavailable_sources()
    assert label.startswith("Semantic Scholar: ") and "429" in label
    assert not service.offline


async def test_fetch_ids_reports_missing_per_id(respx_mock) -> None:
    arxiv = respx_mock.get(ARXIV).mock(return_value=httpx.Response(200, text=fixture("arxiv_idlist_1605.08386.xml")))
    respx_mock.post(f"{S2}/paper/batch").mock(return_value=httpx.Response(200, json=[None]))
    respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(
        return_value=httpx.Response(404, text=fixture("crossref_404.txt"))
    )
    respx_mock.get(url__startswith=f"{OPENALEX}/works/").mock(return_value=httpx.Response(404, text="<html>404</html>"))
    service = make_service()
    async with service.http:
        out = await service.fetch_ids(["1605.08386", "1912.99999", "10.1371/notarealdoi"])
    assert list(out.found) == ["1605.08386"]
    assert out.found["1605.08386"].title == "Heat-bath random walks with Markov bases"
    assert out.missing == ["1912.99999", "10.1371/notarealdoi"] and out.unreachable == []
    assert arxiv.calls[0].request.url.params["id_list"] == "1605.08386,1912.99999"


async def test_fetch_ids_uses_semantic_scholar_when_arxiv_is_down(respx_mock) -> None:
    respx_mock.get(ARXIV).mock(side_effect=httpx.ConnectError("down"))
    s2 = respx_mock.post(f"{S2}/paper/batch").mock(
        return_value=httpx.Response(200, text=json.dumps([json.loads(fixture("s2_paper.json"))]))
    )
    service = make_service()
    async with service.http:
        out = await service.fetch_ids(["2312.07559"])
    assert out.found["2312.07559"].title.startswith("PaperQA")
    assert json.loads(s2.calls[0].request.content) == {"ids": ["arXiv:2312.07559"]}
    assert service.unavailable_sources()[0].startswith("arXiv: cannot connect")


async def test_fetch_ids_unreachable_is_not_missing(respx_mock) -> None:
    for url in (ARXIV, f"{S2}/paper/batch"):
        respx_mock.route(url__startswith=url).mock(side_effect=httpx.ConnectError("offline"))
    service = make_service()
    async with service.http:
        out = await service.fetch_ids(["1605.08386"])
    assert out.found == {} and out.missing == [] and out.unreachable == ["1605.08386"]
    assert service.offline


async def test_tools_record_what_they_return_in_the_pool(respx_mock) -> None:
    respx_mock.get(ARXIV).mock(return_value=httpx.Response(200, text=fixture("arxiv_idlist_1706.03762.xml")))
    respx_mock.get(url__regex=rf"{S2}/paper/.*/references").mock(
        return_value=httpx.Response(200, text=fixture("s2_references.json"))
    )
    service = make_service()
    pool = PaperPool()
    registry = ToolRegistry()
    names = register_literature_tools(registry, service, pool)
    assert names == ["search_papers", "fetch_papers", "related_papers"]
    async with service.http:
        text, is_error = await registry.call("fetch_papers", {"ids": ["arXiv:1706.03762v7", "not-an-id"]})
        result = json.loads(text)
        assert not is_error and result["invalid"] == ["not-an-id"]
        assert result["papers"][0]["paper_id"] == "arxiv:1706.03762"
        text, _ = await registry.call("related_papers", {"paper_id": "1706.03762"})
        assert len(json.loads(text)["papers"]) == 2
        text, _ = await registry.call("related_papers", {"paper_id": "arxiv:2401.00001"})
        assert "unknown paper_id" in json.loads(text)["error"]
    assert len(pool) == 3
    assert pool.get("https://arxiv.org/abs/1204.5721v2").title.startswith("Regret Analysis")  # type: ignore[union-attr]
    assert pool.get("doi:10.1561/2200000024") is pool.get("arxiv:1204.5721")


async def test_settings_drive_the_http_policies(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("EUREKACLAW_DIR", str(tmp_path))
    monkeypatch.setenv("ARXIV_MIN_INTERVAL_S", "4.5")
    monkeypatch.setenv("EUREKACLAW_OFFLINE", "1")
    settings = load_settings()
    async with build_http(settings) as http:
        assert http.policy("export.arxiv.org").min_interval_s == 4.5
        assert http.policy("api.semanticscholar.org").min_interval_s == 1.0
        assert http.offline and http.cache is not None
        assert http.cache.root == tmp_path / "cache" / "http"
    service = LiteratureService.from_settings(settings)
    assert service.offline
    await service.aclose()


async def test_gather_all_cancels_siblings_and_keeps_the_original_error() -> None:
    import asyncio

    import pytest

    from eurekaclaw.errors import BudgetExceededError
    from eurekaclaw.tools.literature.aio import gather_all

    finished: list[str] = []

    async def slow() -> str:
        await asyncio.sleep(30)
        finished.append("slow")
        return "slow"

    async def broke() -> str:
        await asyncio.sleep(0)
        raise BudgetExceededError("budget reached")

    with pytest.raises(BudgetExceededError):
        await gather_all(slow(), broke())
    assert finished == []
    assert await gather_all(asyncio.sleep(0, result=1), asyncio.sleep(0, result=2)) == [1, 2]
