"""One source record judged against one citation: titles word by word, then authors, year and
venue. The ladder that asks the sources is tested in test_literature_citations.py."""

from __future__ import annotations

import pytest

from eurekaclaw.tools.literature.matching import (
    judge_record,
    names,
    same_venue,
    shared_authors,
    split_authors,
)
from eurekaclaw.tools.literature.records import make_paper
from eurekaclaw.tools.literature.titles import (
    VERIFIED_AT,
    compare_titles,
    title_similarity,
    title_tokens,
)

AUER = ["Peter Auer", "Nicolò Cesa-Bianchi", "Paul Fischer"]
MAB = "Finite-time Analysis of the Multiarmed Bandit Problem"

# (cited, source's title): the same title however it is written
SAME_TITLE = [
    ("Attention Is All You Need", "attention is all you need."),
    ("ATTENTION IS ALL YOU NEED", "Attention is All you Need"),
    ("Gödel's incompleteness theorems revisited", "G\\\"odel's Incompleteness Theorems Revisited"),
    ("On the Łojasiewicz inequality", "On the Lojasiewicz inequality"),
    ("Finite-time analysis of the multiarmed bandit problem", "Finite-time analysis of the multi-armed bandit problem"),
    ("Finite time analysis of the multi armed bandit problem", MAB),
    ("Optimal behaviour of randomised algorithms", "Optimal behavior of randomized algorithms"),
    ("Modelling the centre of the spectrum", "Modeling the center of the spectrum"),
    (
        "Regret bounds of order $\\sqrt{T}$ for $\\epsilon$-greedy exploration",
        "Regret bounds of order √T for ε-greedy exploration",
    ),
    ("$\\tilde{O}(\\sqrt{T})$ regret for linear bandits", "Õ(√T) regret for linear bandits"),
    ("Regret of order $O(\\sqrt{T})$ in $\\ell_1$", "Regret of order O(sqrt(T)) in ℓ1"),
    (
        'Bounds for <mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:msqrt><mml:mi>T</mml:mi>'
        "</mml:msqrt></mml:math> regret",
        "Bounds for $\\sqrt{T}$ regret",
    ),
    ("Sampling &amp; <i>estimation</i> for k<n", "Sampling and estimation for k < n"),
    ("The regret of Thompson's sampling", "Regret of Thompson sampling"),  # only stop words differ
    # a subtitle in one title only: CrossRef keeps subtitles apart, BibTeX entries drop them
    ("Bandit algorithms: a survey of exploration", "Bandit algorithms"),
    ("Bandit algorithms", "Bandit Algorithms — a survey of exploration"),
    # a journal dropping the system's name before the colon
    (
        "ChemCrow: Augmenting large-language models with chemistry tools",
        "Augmenting large language models with chemistry tools",
    ),
]

# (cited, source's title, content words only the cited title has, only the source's has)
DIFFERENT_TITLE = [
    ("Attention is all you need", "Attention is not all you need", (), ("not",)),
    (
        "Functional evaluation of cancer variants by pooled base editing in cells",
        "Functional evaluation of cancer variants by pooled prime editing in cells",
        ("base",),
        ("prime",),
    ),
    (
        "Thompson sampling for contextual bandits with logistic payoffs",
        "Thompson Sampling for Contextual Bandits with Linear Payoffs",
        ("logistic",),
        ("linear",),
    ),
    ("Lower bounds for bandits without feedback", "Lower bounds for bandits with feedback", ("without",), ()),
    ("On the convergence of non-convex SGD", "On the convergence of convex SGD", ("nonconvex",), ("convex",)),
    ("Learning with 2 experts", "Learning with 3 experts", ("2",), ("3",)),
    ("Mixing times of Markov chains, part I", "Mixing times of Markov chains, part II", ("i",), ("ii",)),
    ("Bandit problem", "Bandit problems", ("problem",), ("problems",)),  # plurals are other words
    ("Bandit algorithms: a survey", "Bandit algorithms: a tutorial", ("survey",), ("tutorial",)),
]


@pytest.mark.parametrize(("cited", "found"), SAME_TITLE)
def test_the_same_title_however_written(cited: str, found: str) -> None:
    match = compare_titles(cited, found)
    assert match.close, match
    assert compare_titles(found, cited).close  # symmetric


@pytest.mark.parametrize(("cited", "found", "only_cited", "only_found"), DIFFERENT_TITLE)
def test_a_differing_content_word_is_a_different_title(cited, found, only_cited, only_found) -> None:
    match = compare_titles(cited, found)
    assert not match.close
    assert (match.only_cited, match.only_found) == (only_cited, only_found)


def test_measured_near_misses_score_as_before_or_lower_but_are_not_close() -> None:
    # one word of eleven changed: high similarity, still a different title
    pooled = DIFFERENT_TITLE[1]
    assert title_similarity(pooled[0], pooled[1]) >= VERIFIED_AT
    assert not compare_titles(pooled[0], pooled[1]).close
    # the negation: word order counts, so the similarity alone no longer passes either
    assert title_similarity("Attention is all you need", "Attention is not all you need") < VERIFIED_AT


def test_word_order_counts() -> None:
    match = compare_titles("Bandits with knapsacks", "Knapsacks with bandits")
    assert not match.close and match.note == "the same words in a different order"
    assert match.similarity == pytest.approx(0.5)


def test_a_one_word_main_title_stands_alone_only_when_fetched_by_id() -> None:
    full = "ChemCrow: Augmenting large-language models with chemistry tools"
    assert not compare_titles("ChemCrow", full).close
    assert compare_titles("ChemCrow", full, by_id=True).close


def test_title_tokens() -> None:
    assert title_tokens("Regret of $\\mathcal{O}(\\sqrt{T \\log T})$ for the multi-armed bandit") == [
        "regret",
        "of",
        "o",
        "t",
        "log",
        "t",
        "for",
        "the",
        "multiarmed",
        "bandit",
    ]
    assert title_tokens("Neighbourhood catalogue of labelled centres") == [
        "neighborhood",
        "catalog",
        "of",
        "labeled",
        "centers",
    ]
    # spelling rules never merge two different words
    assert title_tokens("filling four noise") == ["filling", "four", "noise"]


# --------------------------------------------------------------------------------------------
# authors and venues
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cited", "found"),
    [
        ("Vaswani, A.", "Ashish Vaswani"),
        ("A. Vaswani", "Vaswani, Ashish"),
        ("Vaswani AN", "Ashish Vaswani"),
        ("Sebastien Bubeck", "Sébastien Bubeck"),
        ("Łojasiewicz, S.", "Stanisław Lojasiewicz"),
        ("N. Cesa Bianchi", "Nicolò Cesa-Bianchi"),
        ("van der Vaart, A. W.", "Aad W. van der Vaart"),
        ("Zhang Wei", "Wei Zhang"),
        ("O'Donoghue, B.", "Brendan ODonoghue"),
        ("Martin Luther King Jr.", "King, M. L."),
        ("X. LI", "Xiaoyu Li"),
    ],
)
def test_the_same_author(cited: str, found: str) -> None:
    assert shared_authors(names([cited]), names([found]))


@pytest.mark.parametrize(("cited", "found"), [("John Smith", "John Langford"), ("Wei Li", "Wei Zhang")])
def test_different_authors(cited: str, found: str) -> None:
    assert not shared_authors(names([cited]), names([found]))


def test_author_lists_in_one_string_and_et_al() -> None:
    assert split_authors(["A. Vaswani, N. Shazeer, et al."]) == ["A. Vaswani", "N. Shazeer"]
    assert split_authors(["Vaswani, A. and Shazeer, N. and others"]) == ["Vaswani, A.", "Shazeer, N."]
    assert split_authors(["van der Vaart, Aad W."]) == ["van der Vaart, Aad W."]
    assert names(["et al.", "others"]) == []


@pytest.mark.parametrize(
    ("cited", "found", "same"),
    [
        ("NeurIPS", "Advances in Neural Information Processing Systems 30", True),
        ("JMLR", "Journal of Machine Learning Research", True),
        ("J. Mach. Learn. Res.", "Journal of Machine Learning Research", True),
        ("ICML", "Proceedings of the 34th International Conference on Machine Learning", True),
        ("PNAS", "Proceedings of the National Academy of Sciences", True),
        (
            "Proc. Natl. Acad. Sci. U.S.A.",
            "Proceedings of the National Academy of Sciences of the United States of America",
            True,
        ),
        ("Annals of Statistics", "The Annals of Statistics", True),
        ("COLT", "Algorithmic Learning Theory", False),
        ("Nature", "Nature Communications", False),
        ("Physical Review A", "Physical Review E", False),
    ],
)
def test_venues(cited: str, found: str, same: bool) -> None:
    assert same_venue(cited, found) is same


# --------------------------------------------------------------------------------------------
# a record judged against a citation
# --------------------------------------------------------------------------------------------


def source_record(**fields):
    base = {"title": MAB, "authors": AUER, "year": 2002, "venue": "Machine Learning", "doi": "10.1023/a:1013689704352"}
    return make_paper("crossref", **{**base, **fields})


def cited(title: str = "Finite-time analysis of the multi-armed bandit problem", **fields):
    return make_paper("model", title=title, **fields)


@pytest.mark.parametrize(
    ("fields", "status", "said"),
    [
        ({"authors": ["Auer, P.", "et al."]}, "verified", "agrees on authors (Auer)"),
        ({"year": 2002}, "verified", "agrees on year 2002"),
        ({"year": 2001}, "verified", "year 2002 (cited 2001)"),  # the preprint's year
        ({"venue": "Mach. Learn."}, "verified", "agrees on venue"),
        # wrong authors only: the title and year are right, the attribution is not
        (
            {"authors": ["Lai, T. L.", "Robbins, H."], "year": 2002},
            "suspicious",
            "authors differ: cited Lai, Robbins; source has Auer, Cesa-Bianchi, Fischer",
        ),
        # wrong year only: the authors identify the work; the year is named
        ({"authors": ["P. Auer"], "year": 1995}, "verified", "year: cited 1995, source has 2002"),
        ({"year": 1995}, "suspicious", "nothing else agrees; year: cited 1995, source has 2002"),
        ({"venue": "Annals of Statistics"}, "suspicious", "venue: cited 'Annals of Statistics'"),
        ({}, "unverified", "the citation gives only a title"),
        ({"venue": "arXiv preprint"}, "unverified", "the citation gives only a title"),
    ],
)
def test_a_close_title_needs_an_agreeing_field(fields, status, said) -> None:
    judgement = judge_record(cited(**fields), source_record())
    assert judgement.status == status, judgement
    assert said in judgement.explanation


def test_a_record_without_the_cited_fields_cannot_confirm() -> None:
    judgement = judge_record(cited(authors=["Auer"]), source_record(authors=[], year=None))
    assert judgement.status == "unverified"
    assert "the source's record has no authors to compare" in judgement.explanation


def test_a_near_miss_title_is_suspicious_whatever_else_agrees() -> None:
    wrong = cited("Finite-time analysis of the multi-armed dueling bandit problem", authors=AUER, year=2002)
    judgement = judge_record(wrong, source_record())
    assert judgement.status == "suspicious"
    assert judgement.explanation == "title differs: cited has 'dueling', source has nothing"


def test_an_unrelated_title_is_not_found() -> None:
    assert judge_record(cited("Deep residual learning", authors=AUER), source_record()).status == "not_found"


def test_an_omitted_subtitle_is_named() -> None:
    judgement = judge_record(
        cited("Bandit algorithms", year=2020),
        source_record(title="Bandit algorithms: a survey of exploration", year=2020),
    )
    assert judgement.status == "verified"
    assert "subtitle 'a survey of exploration' only in the source's title" in judgement.explanation
