"""Every rung of the citation ladder, including the fail-closed cases, and cite keys."""

from __future__ import annotations

import httpx
import pytest
from lit_helpers import ARXIV, CROSSREF, OPENALEX, S2, fixture, make_service

from eurekaclaw.tools.literature.citations import (
    assign_cite_keys,
    base_cite_key,
    status_for,
    title_similarity,
)
from eurekaclaw.tools.literature.records import make_paper

PNAS_TITLE = ("Developing functional musculoskeletal tissues through hypoxia and lysyl "
              "oxidase-induced collagen cross-linking")
CHEMCROW = "ChemCrow: Augmenting large-language models with chemistry tools"


def test_similarity_is_shared_words_over_the_longer_title() -> None:
    assert title_similarity("Attention Is All You Need", "attention is all you need.") == 1.0
    # 4 shared of max(4, 5) words
    assert title_similarity("Attention is all you", "Attention Is All You Need") == pytest.approx(0.8)
    assert title_similarity("", "anything") == 0.0


@pytest.mark.parametrize(("sim", "status"), [(1.0, "verified"), (0.8, "verified"), (0.79, "suspicious"),
                                             (0.5, "suspicious"), (0.49, "not_found"), (0.0, "not_found")])
def test_thresholds(sim: float, status: str) -> None:
    assert status_for(sim) == status


async def test_doi_rung_crossref_verifies_and_stops(respx_mock) -> None:
    cr = respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(
        return_value=httpx.Response(200, text=fixture("crossref_work.json")))
    service = make_service()
    paper = make_paper("openalex", title=PNAS_TITLE, doi="10.1073/pnas.1414271111")
    async with service.http:
        (checked,), ran = await service.verify([paper])
    assert ran and checked.verification == "verified" and checked.similarity == 1.0
    assert "crossref" in checked.verification_detail
    assert cr.call_count == 1  # no title search after a confirmed DOI (other hosts are unmocked)


async def test_doi_resolving_to_a_different_title_is_suspicious(respx_mock) -> None:
    respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(return_value=httpx.Response(200, text=fixture("crossref_work.json")))
    respx_mock.get(f"{OPENALEX}/works").mock(return_value=httpx.Response(200, text=fixture("openalex_works_search.json")))
    respx_mock.get(f"{S2}/paper/search").mock(return_value=httpx.Response(200, text=fixture("s2_search.json")))
    service = make_service()
    # 8 of the real title's 13 words: 0.62
    paper = make_paper("model", title="Developing functional musculoskeletal tissues through hypoxia and collagen",
                       doi="10.1073/pnas.1414271111")
    async with service.http:
        (checked,), ran = await service.verify([paper])
    assert checked.verification == "suspicious"
    assert checked.similarity == pytest.approx(8 / 13, abs=1e-3)
    assert PNAS_TITLE in checked.verification_detail  # the user is shown what the DOI really is


async def test_crossref_404_falls_back_to_openalex_title_search(respx_mock) -> None:
    respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(return_value=httpx.Response(404, text=fixture("crossref_404.txt")))
    oa = respx_mock.get(f"{OPENALEX}/works").mock(return_value=httpx.Response(200, text=fixture("openalex_works_search.json")))
    service = make_service()
    paper = make_paper("model", title=CHEMCROW, doi="10.1371/notarealdoi")
    async with service.http:
        (checked,), _ = await service.verify([paper])
    assert checked.verification == "verified"
    assert checked.verification_detail.startswith("openalex (title search)")
    assert "not registered" in checked.verification_detail
    assert oa.calls[0].request.url.params["filter"].startswith("title.search:ChemCrow")


async def test_arxiv_rung_verifies_by_id(respx_mock) -> None:
    route = respx_mock.get(ARXIV).mock(return_value=httpx.Response(200, text=fixture("arxiv_idlist_1706.03762.xml")))
    service = make_service()
    paper = make_paper("semantic_scholar", title="Attention is All you Need", arxiv_id="1706.03762v5")
    async with service.http:
        (checked,), ran = await service.verify([paper])
    assert ran and checked.verification == "verified"
    assert checked.verification_detail.startswith("arxiv (id 1706.03762)")
    assert route.calls[0].request.url.params["id_list"] == "1706.03762"


async def test_unknown_arxiv_id_and_openalex_down_then_s2_verifies(respx_mock) -> None:
    respx_mock.get(ARXIV).mock(return_value=httpx.Response(200, text=fixture("arxiv_idlist_empty.xml")))
    respx_mock.get(f"{OPENALEX}/works").mock(return_value=httpx.Response(503, text="unavailable"))
    respx_mock.get(f"{S2}/paper/search").mock(return_value=httpx.Response(200, text=fixture("s2_search.json")))
    service = make_service()
    paper = make_paper("model", title="Large Language Models Pass the Turing Test", arxiv_id="1912.99999")
    async with service.http:
        (checked,), ran = await service.verify([paper])
    assert checked.verification == "verified"
    assert checked.verification_detail.startswith("semantic_scholar (title search)")
    assert "arXiv: no paper 1912.99999" in checked.verification_detail


async def test_invented_title_is_not_found(respx_mock) -> None:
    respx_mock.get(f"{OPENALEX}/works").mock(return_value=httpx.Response(200, text=fixture("openalex_works_search.json")))
    respx_mock.get(f"{S2}/paper/search").mock(return_value=httpx.Response(200, text=fixture("s2_search.json")))
    service = make_service()
    async with service.http:
        (checked,), ran = await service.verify([make_paper("model", title="Totally Fake Paper About Dragons")])
    assert ran and checked.verification == "not_found"


async def test_not_confirmed_while_a_source_was_down_is_unverified_not_not_found(respx_mock) -> None:
    respx_mock.get(f"{OPENALEX}/works").mock(return_value=httpx.Response(200, text=fixture("openalex_works_search.json")))
    respx_mock.get(f"{S2}/paper/search").mock(return_value=httpx.Response(429, text=fixture("s2_429.json")))
    service = make_service()
    async with service.http:
        (checked,), _ = await service.verify([make_paper("model", title="Heavy tailed bandits revisited")])
    assert checked.verification == "unverified"
    assert "could not be checked" in checked.verification_detail


async def test_offline_everything_is_unverified_and_no_check_ran(respx_mock) -> None:
    for host in (ARXIV, f"{OPENALEX}/works", f"{S2}/paper/search"):
        respx_mock.get(url__startswith=host).mock(side_effect=httpx.ConnectError("no network"))
    respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(side_effect=httpx.ConnectError("no network"))
    service = make_service()
    papers = [
        make_paper("cache", title=PNAS_TITLE, doi="10.1073/pnas.1414271111"),
        make_paper("cache", title="Attention Is All You Need", arxiv_id="1706.03762"),
        make_paper("cache", title=CHEMCROW),
    ]
    async with service.http:
        checked, ran = await service.verify(papers)
    assert not ran
    assert [p.verification for p in checked] == ["unverified"] * 3
    assert service.http.requests_sent == 4  # one failed connection per host, then breakers open


async def test_arxiv_ids_are_checked_in_one_batched_request(respx_mock) -> None:
    route = respx_mock.get(ARXIV).mock(return_value=httpx.Response(200, text=fixture("arxiv_idlist_1706.03762.xml")))
    respx_mock.get(f"{OPENALEX}/works").mock(return_value=httpx.Response(200, json={"meta": {}, "results": []}))
    respx_mock.get(f"{S2}/paper/search").mock(return_value=httpx.Response(200, json={"total": 0, "data": []}))
    service = make_service()
    papers = [make_paper("x", title="Attention Is All You Need", arxiv_id="1706.03762"),
              make_paper("x", title="Heat-bath random walks with Markov bases", arxiv_id="1605.08386")]
    async with service.http:
        checked, _ = await service.verify(papers)
    assert route.call_count == 1
    assert route.calls[0].request.url.params["id_list"] == "1605.08386,1706.03762"
    assert [p.verification for p in checked] == ["verified", "not_found"]


def test_cite_keys_are_deterministic_and_unique() -> None:
    a = make_paper("x", title="The Regret of Bandits", authors=["Sébastien Bubeck"], year=2012, arxiv_id="1204.5721")
    b = make_paper("x", title="Regret bounds", authors=["Bubeck, S."], year=2012, doi="10.1000/b")
    c = make_paper("x", title="A Study", authors=[], year=None)
    assert base_cite_key(a) == "bubeck2012regret"
    assert base_cite_key(c) == "anonndstudy"
    keyed = assign_cite_keys([b, a, c])
    # collision resolved in paper_id order: arxiv:… < doi:…
    assert [p.cite_key for p in keyed] == ["bubeck2012regretb", "bubeck2012regreta", "anonndstudy"]
    assert [p.cite_key for p in assign_cite_keys([a, b, c])] == ["bubeck2012regreta", "bubeck2012regretb", "anonndstudy"]
