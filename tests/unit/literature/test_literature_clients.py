"""Parsing of every service's search and lookup answers, served from recorded responses."""

from __future__ import annotations

import json

import httpx
import pytest
from lit_helpers import ARXIV, CROSSREF, OPENALEX, S2, fixture, fixture_bytes, make_http

from eurekaclaw.tools.literature.arxiv import (
    ArxivClient,
    ArxivQueryError,
    build_search_query,
    parse_feed,
)
from eurekaclaw.tools.literature.crossref import CrossrefClient
from eurekaclaw.tools.literature.http import SourceUnavailable
from eurekaclaw.tools.literature.openalex import OpenAlexClient, rebuild_abstract
from eurekaclaw.tools.literature.semantic_scholar import SemanticScholarClient

ATOM = {"content-type": "application/atom+xml; charset=UTF-8"}
JSON = {"content-type": "application/json"}


# --- arXiv ------------------------------------------------------------------------------------


async def test_arxiv_search_parses_the_recorded_feed(respx_mock) -> None:
    route = respx_mock.get(ARXIV).mock(
        return_value=httpx.Response(200, content=fixture_bytes("arxiv_search_testing.xml"), headers=ATOM)
    )
    async with make_http() as http:
        papers = await ArxivClient(http).search("testing", max_results=10)
    assert len(papers) == 10
    first = papers[0]
    assert first.arxiv_id == "2202.12139" and first.paper_id == "arxiv:2202.12139"
    assert first.title.startswith("Testing Deep Learning Models")
    assert first.authors[:2] == ["Mohit Kumar Ahuja", "Arnaud Gotlieb"]
    assert first.year == 2022 and first.doi == "10.1109/icstw55395.2022.00035"
    assert first.sources == ["arxiv"]
    params = route.calls[0].request.url.params
    assert params["search_query"] == "all:testing" and params["max_results"] == "10"


async def test_arxiv_id_list_lookup(respx_mock) -> None:
    route = respx_mock.get(ARXIV).mock(
        return_value=httpx.Response(200, text=fixture("arxiv_idlist_1706.03762.xml"), headers=ATOM)
    )
    async with make_http() as http:
        found = await ArxivClient(http).fetch(["1706.03762v5"])
    paper = found["1706.03762"]
    assert paper.title == "Attention Is All You Need"
    assert len(paper.authors) == 8 and paper.authors[0] == "Ashish Vaswani"
    assert paper.year == 2017 and paper.abstract.startswith("The dominant sequence transduction")
    assert route.calls[0].request.url.params["id_list"] == "1706.03762v5"


def test_arxiv_legacy_feed_layout() -> None:
    papers, errors = parse_feed(fixture("arxiv_idlist_1111.2011v2_legacy.xml"))
    assert errors == []
    (paper,) = papers
    assert paper.arxiv_id == "1111.2011"
    # hard-wrapped title collapsed; per-element namespaces resolved
    assert paper.title == "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    assert paper.doi == "10.1103/physrevb.85.115117"
    assert paper.venue == "Phys. Rev. B 85, 115117 (2012)"
    assert paper.abstract.startswith("Theoretical description of anisotropic systems, such as layered superconductors")


async def test_arxiv_unknown_id_is_absent_and_error_feed_raises(respx_mock) -> None:
    respx_mock.get(ARXIV, params={"id_list": "0704.0001"}).mock(
        return_value=httpx.Response(200, text=fixture("arxiv_idlist_empty.xml"), headers=ATOM)
    )
    respx_mock.get(ARXIV, params={"id_list": "abc"}).mock(
        return_value=httpx.Response(400, text=fixture("arxiv_error.xml"), headers=ATOM)
    )
    async with make_http() as http:
        client = ArxivClient(http)
        assert await client.fetch(["0704.0001"]) == {}
        with pytest.raises(ArxivQueryError, match="incorrect id format for abc"):
            await client.fetch(["abc"])


def test_arxiv_query_builder_ands_content_words() -> None:
    assert build_search_query("multi-armed bandits with heavy tails") == (
        'all:"multi armed" AND all:bandits AND all:heavy AND all:tails'
    )


async def test_arxiv_server_error_is_unavailable(respx_mock) -> None:
    respx_mock.get(ARXIV).mock(return_value=httpx.Response(503, text="busy"))
    async with make_http() as http:
        with pytest.raises(SourceUnavailable):
            await ArxivClient(http).search("bandits")


# --- Semantic Scholar ---------------------------------------------------------------------------


async def test_s2_search(respx_mock) -> None:
    route = respx_mock.get(f"{S2}/paper/search").mock(
        return_value=httpx.Response(200, text=fixture("s2_search.json"), headers=JSON)
    )
    async with make_http() as http:
        papers = await SemanticScholarClient(http, api_key="k-123").search("turing", limit=20)
    assert len(papers) == 20
    first = papers[0]
    assert first.title == "Large Language Models Pass the Turing Test"
    assert first.arxiv_id == "2503.23674" and first.doi is None  # arXiv's own DOI folded into the id
    assert first.s2_id == "66e350075a66ca5fd0c09f20d76aaad2c5c6860c"
    assert first.authors == ["Cameron R. Jones", "Benjamin K. Bergen"] and first.year == 2025
    assert first.citation_count == 72 and first.sources == ["semantic_scholar"]
    assert any(p.abstract == "" for p in papers)  # null abstracts become empty
    assert route.calls[0].request.headers["x-api-key"] == "k-123"


async def test_s2_search_title_only_fields(respx_mock) -> None:
    respx_mock.get(f"{S2}/paper/search").mock(
        return_value=httpx.Response(200, text=fixture("s2_search_edit_distance.json"))
    )
    async with make_http() as http:
        papers = await SemanticScholarClient(http).search("sublinear near optimal edit distance", limit=100)
    assert len(papers) == 89
    assert papers[0].title == "Near-optimal sublinear time algorithms for Ulam distance"
    assert papers[0].paper_id == "s2:169a66a031488ce0c8fdd70502945dbf69b045a5"


async def test_s2_paper_by_doi_id(respx_mock) -> None:
    route = respx_mock.get(url__regex=rf"{S2}/paper/DOI:.*").mock(
        return_value=httpx.Response(200, text=fixture("s2_paper.json"))
    )
    async with make_http() as http:
        paper = await SemanticScholarClient(http).paper("DOI:10.48550/arxiv.2312.07559")
    assert paper is not None
    assert paper.title.startswith("PaperQA") and paper.arxiv_id == "2312.07559"
    assert route.calls[0].request.url.path.endswith("/paper/DOI:10.48550/arxiv.2312.07559")


async def test_s2_unknown_paper_is_none(respx_mock) -> None:
    respx_mock.get(url__regex=rf"{S2}/paper/arXiv:.*").mock(
        return_value=httpx.Response(404, text=fixture("s2_404.json"))
    )
    async with make_http() as http:
        assert await SemanticScholarClient(http).paper("arXiv:1912.99999") is None


async def test_s2_batch_keeps_request_order_and_nulls(respx_mock) -> None:
    route = respx_mock.post(f"{S2}/paper/batch").mock(return_value=httpx.Response(200, text=fixture("s2_batch.json")))
    ids = ["CorpusId:211530585", "CorpusId:470667", "10.2139/ssrn.2250500", "0f40b1f08821e22e859c6050916cec3667778613"]
    async with make_http() as http:
        papers = await SemanticScholarClient(http).batch(ids)
    assert papers[0] is None
    assert papers[1] is not None and papers[1].title == "How Much Should We Trust Differences-in-Differences Estimates?"
    assert papers[1].doi == "10.2139/ssrn.288970"
    assert all(p is not None for p in papers[1:])
    assert json.loads(route.calls[0].request.content) == {"ids": ids}


async def test_s2_references(respx_mock) -> None:
    respx_mock.get(url__regex=rf"{S2}/paper/.*/references").mock(
        return_value=httpx.Response(200, text=fixture("s2_references.json"))
    )
    async with make_http() as http:
        papers = await SemanticScholarClient(http).references("arXiv:1605.08386")
    assert [p.title for p in papers] == [
        "Regret Analysis of Stochastic and Nonstochastic Multi-armed Bandit Problems",
        "Some aspects of the sequential design of experiments",
    ]
    assert papers[0].arxiv_id == "1204.5721" and papers[0].doi == "10.1561/2200000024"
    assert papers[0].authors[0] == "Sébastien Bubeck"


async def test_s2_refused_key_is_unavailable(respx_mock) -> None:
    respx_mock.get(f"{S2}/paper/search").mock(return_value=httpx.Response(403, json={"message": "Forbidden"}))
    async with make_http() as http:
        with pytest.raises(SourceUnavailable, match="S2_API_KEY"):
            await SemanticScholarClient(http, api_key="bad").search("x")


# --- OpenAlex ---------------------------------------------------------------------------------------


async def test_openalex_title_search(respx_mock) -> None:
    route = respx_mock.get(f"{OPENALEX}/works").mock(
        return_value=httpx.Response(200, text=fixture("openalex_works_search.json"))
    )
    async with make_http() as http:
        papers = await OpenAlexClient(http, mailto="me@example.org").title_search(
            "Augmenting large language models with chemistry tools"
        )
    assert len(papers) == 2
    preprint = papers[1]
    assert preprint.openalex_id == "W4365597205"
    assert preprint.arxiv_id == "2304.05376" and preprint.doi is None  # from the 10.48550 DOI
    assert preprint.title == "ChemCrow: Augmenting large-language models with chemistry tools"
    assert preprint.authors[0] == "Andres M Bran" and preprint.year == 2023
    assert preprint.abstract.startswith("Over the last decades, excellent")
    params = route.calls[0].request.url.params
    assert params["filter"] == "title.search:Augmenting large language models with chemistry tools"
    assert params["mailto"] == "me@example.org"


async def test_openalex_work_by_doi(respx_mock) -> None:
    route = respx_mock.get(url__startswith=f"{OPENALEX}/works/https://doi.org/").mock(
        return_value=httpx.Response(200, text=fixture("openalex_work.json"))
    )
    async with make_http() as http:
        paper = await OpenAlexClient(http).work("10.1073/pnas.1414271111")
    assert paper is not None
    assert paper.doi == "10.1073/pnas.1414271111" and paper.openalex_id == "W2109415576"
    assert paper.venue == "Proceedings of the National Academy of Sciences"
    assert len(paper.abstract.split()) > 90
    assert route.called


async def test_openalex_unknown_work_is_none(respx_mock) -> None:
    respx_mock.get(url__startswith=f"{OPENALEX}/works/").mock(
        return_value=httpx.Response(
            404, text="<html><body>404 Not Found</body></html>", headers={"content-type": "text/html"}
        )
    )
    async with make_http() as http:
        assert await OpenAlexClient(http).work("W1") is None


def test_openalex_abstract_rebuilt_in_word_order() -> None:
    assert rebuild_abstract({"bandits": [1], "Heavy-tailed": [0], "revisited": [2]}) == "Heavy-tailed bandits revisited"
    assert rebuild_abstract(None) == ""


# --- CrossRef ---------------------------------------------------------------------------------------


async def test_crossref_work(respx_mock) -> None:
    route = respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(
        return_value=httpx.Response(200, text=fixture("crossref_work.json"))
    )
    async with make_http() as http:
        paper = await CrossrefClient(http, mailto="me@example.org").work("10.1073/pnas.1414271111")
    assert paper is not None
    assert paper.title.startswith("Developing functional musculoskeletal tissues")
    assert paper.authors[0] == "Eleftherios A. Makris" and paper.year == 2014
    assert paper.venue == "Proceedings of the National Academy of Sciences"
    assert paper.citation_count == 129 and "<jats" not in paper.abstract
    assert route.calls[0].request.url.raw_path.startswith(b"/works/10.1073%2Fpnas.1414271111")


async def test_crossref_404_is_none(respx_mock) -> None:
    respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(
        return_value=httpx.Response(404, text=fixture("crossref_404.txt"), headers={"content-type": "text/plain"})
    )
    async with make_http() as http:
        assert await CrossrefClient(http).work("10.1371/notarealdoi") is None
