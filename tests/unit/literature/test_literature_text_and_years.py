"""Issue 18 item 5: accented names in arXiv queries, CrossRef's publication year, control
characters from cp1252 mojibake, and the year a merged record keeps — on recorded answers."""

from __future__ import annotations

import copy
import json

import httpx
from lit_helpers import ARXIV, CROSSREF, fixture, fixture_bytes, make_http

from eurekaclaw.agents.writer.bibtex import bibtex_entry
from eurekaclaw.tools.literature import crossref, openalex
from eurekaclaw.tools.literature.arxiv import ArxivClient, build_search_query, parse_feed
from eurekaclaw.tools.literature.crossref import CrossrefClient
from eurekaclaw.tools.literature.dedup import dedupe
from eurekaclaw.tools.literature.records import clean_text, make_paper
from eurekaclaw.tools.literature.semantic_scholar import parse_paper

ATOM = {"content-type": "application/atom+xml; charset=UTF-8"}


def _crossref_message() -> dict:
    return json.loads(fixture("crossref_work.json"))


# --- arXiv query ------------------------------------------------------------------------------


def test_accented_hyphenated_name_survives_the_query_builder() -> None:
    query = build_search_query("Erdős–Rényi random graphs")
    assert query == '(all:"Erdős Rényi" OR all:"Erdos Renyi") AND all:random AND all:graphs'
    assert "Erd AND" not in query and "all:s " not in query


def test_names_without_a_lossless_ascii_spelling_are_searched_as_written() -> None:
    assert build_search_query("Łojasiewicz gradient inequality") == (
        "all:Łojasiewicz AND all:gradient AND all:inequality"
    )
    assert build_search_query("Bernstein's inequality for martingales") == (
        "all:Bernstein AND all:inequality AND all:martingales"
    )
    # quotes a user typed cannot break out of the phrase syntax
    assert build_search_query('the "of"') == 'all:"the of"'


async def test_accented_query_is_sent_as_utf8(respx_mock) -> None:
    route = respx_mock.get(ARXIV).mock(
        return_value=httpx.Response(200, content=fixture_bytes("arxiv_search_testing.xml"), headers=ATOM)
    )
    async with make_http() as http:
        papers = await ArxivClient(http).search("Pólya urn Erdős–Rényi", max_results=10)
    assert len(papers) == 10
    request = route.calls[0].request
    assert request.url.params["search_query"] == (
        '(all:Pólya OR all:Polya) AND all:urn AND (all:"Erdős Rényi" OR all:"Erdos Renyi")'
    )
    assert b"P%C3%B3lya" in request.url.raw_path  # percent-encoded UTF-8 on the wire


# --- CrossRef year ----------------------------------------------------------------------------


def test_crossref_year_is_the_print_date_in_the_recorded_work() -> None:
    paper = crossref.parse_work(_crossref_message())
    assert paper is not None and paper.year == 2014


def test_crossref_year_falls_back_in_documented_order_and_never_to_registration_dates() -> None:
    body = _crossref_message()
    msg = body["message"]
    # the recorded work: deposited 2022, indexed 2025, created 2014-10-28
    assert msg["deposited"]["date-parts"][0][0] == 2022
    msg["published-print"] = {"date-parts": [[2015, 1]]}
    msg["published-online"] = {"date-parts": [[2014, 12, 30]]}
    msg["issued"] = {"date-parts": [[2013]]}
    assert crossref.parse_work(body).year == 2015
    del msg["published-print"]
    assert crossref.parse_work(body).year == 2014
    del msg["published-online"]
    assert crossref.parse_work(body).year == 2013
    msg["issued"] = {"date-parts": [[None]]}  # how CrossRef says "no date"
    msg.pop("published", None)
    assert msg["created"] and msg["deposited"] and msg["indexed"]
    assert crossref.parse_work(body).year is None


async def test_crossref_client_year_from_recorded_answer_without_print_date(respx_mock) -> None:
    body = _crossref_message()
    for key in ("published-print", "published-online", "issued", "published"):
        body["message"].pop(key, None)
    respx_mock.get(url__startswith=f"{CROSSREF}/works/").mock(return_value=httpx.Response(200, json=body))
    async with make_http() as http:
        paper = await CrossrefClient(http).work("10.1073/pnas.1414271111")
    assert paper is not None and paper.year is None  # not 2022 (deposited), not 2014 (created)


# --- control characters -----------------------------------------------------------------------


def test_cp1252_smart_quotes_are_restored_and_other_controls_dropped() -> None:
    assert clean_text("the \x93optimal\x94 arm\x92s regret \x96 a bound") == (
        "the \u201coptimal\u201d arm\u2019s regret \u2013 a bound"
    )
    assert clean_text("ab\x00c\x07d\x81e\x1bf") == "abcdef"
    assert clean_text("line\x0bbreak\tand\ttab") == "line break and tab"


def test_control_characters_from_a_service_never_reach_bibtex() -> None:
    body = _crossref_message()
    msg = body["message"]
    msg["title"] = ["The \x93Lysyl oxidase\x94 pathway\x92s role\x07 in cartilage"]
    msg["author"][0]["family"] = "Makris\x00"
    msg["container-title"] = ["Proc. Natl. Acad. Sci.\x1b"]
    paper = crossref.parse_work(body)
    assert paper is not None
    assert paper.title == "The \u201cLysyl oxidase\u201d pathway\u2019s role in cartilage"
    assert paper.authors[0] == "Eleftherios A. Makris"
    entry = bibtex_entry("makris2014lysyl", paper)
    assert not any(0x00 <= ord(ch) < 0x20 and ch != "\n" or 0x7F <= ord(ch) <= 0x9F for ch in entry)
    assert "\\x93" not in entry and "pathway" in entry and "Makris" in entry


def test_s2_author_names_are_cleaned_too() -> None:
    item = json.loads(fixture("s2_search.json"))["data"][0]
    item = copy.deepcopy(item)
    item["authors"] = [{"name": "A.\x92 Turing\x00"}, {"name": "\x07"}]
    paper = parse_paper(item)
    assert paper is not None and paper.authors == ["A.\u2019 Turing"]


# --- merged year ------------------------------------------------------------------------------


def test_merged_year_follows_source_precedence_not_arrival_order() -> None:
    (arx,), _ = parse_feed(fixture("arxiv_idlist_1706.03762.xml"))
    assert arx.year == 2017 and arx.venue == "arXiv"
    s2 = make_paper(
        "semantic_scholar",
        title="Attention is All you Need",
        arxiv_id="1706.03762",
        year=2018,
        venue="Neural Information Processing Systems",
    )
    publisher = make_paper(
        "crossref", title="Attention is all you need", arxiv_id="1706.03762", year=2019, venue="NeurIPS Proceedings"
    )
    for order in ([arx, s2, publisher], [publisher, arx, s2], [s2, publisher, arx]):
        (merged,) = dedupe(order)
        assert merged.year == 2019, [p.sources for p in order]
        assert merged.venue == "NeurIPS Proceedings"
    (merged,) = dedupe([arx, s2])
    assert merged.year == 2018 and merged.venue == "Neural Information Processing Systems"
    (merged,) = dedupe([s2.model_copy(update={"year": None}), arx])
    assert merged.year == 2017  # arXiv's first-version year only as the fallback


def test_recorded_openalex_and_crossref_agree_whichever_comes_first() -> None:
    oa = openalex.parse_work(json.loads(fixture("openalex_work.json")))
    body = _crossref_message()
    body["message"]["published-print"] = {"date-parts": [[2015]]}  # make them disagree
    cr = crossref.parse_work(body)
    assert oa is not None and cr is not None and oa.year == 2014
    assert dedupe([oa, cr])[0].year == 2015 and dedupe([cr, oa])[0].year == 2015
