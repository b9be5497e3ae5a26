from __future__ import annotations

import pytest

from eurekaclaw.agents.survey.fetcher import choose_papers, relevant_ids_from
from eurekaclaw.agents.survey.models import DirectionDraft, DirectionSet
from eurekaclaw.agents.survey.scoring import composite, rank, select, to_direction
from eurekaclaw.tools.literature.records import make_paper
from eurekaclaw.tools.literature.tools import PaperPool

W = (0.4, 0.35, 0.25)


def draft(title: str, n, s, t) -> DirectionDraft:
    return DirectionDraft.model_validate(
        {"title": title, "statement": f"{title} holds", "novelty": n, "soundness": s, "transformative": t}
    )


def test_composite_uses_normalised_weights() -> None:
    assert composite((1.0, 0.0, 0.0), W) == pytest.approx(0.4)
    assert composite((0.5, 0.5, 0.5), (2, 2, 2)) == pytest.approx(0.5)


def test_unusable_scores_become_zero_and_are_reported() -> None:
    parsed = DirectionSet.model_validate(
        {"directions": [{"title": "x", "statement": "y", "novelty": "high", "soundness": 1.7, "transformative": None}]}
    )
    direction, failed = to_direction(parsed.directions[0], W)
    assert failed == ["novelty", "soundness", "transformative"]
    assert (direction.novelty, direction.soundness, direction.transformative, direction.composite) == (0, 0, 0, 0)
    ok, failed = to_direction(draft("z", "0.5", 0.5, 0.5), W)
    assert failed == [] and ok.composite == pytest.approx(0.5)


def test_ties_break_on_soundness_then_novelty_then_order() -> None:
    # a and b: same composite 0.5; b is sounder
    a, _ = to_direction(draft("a", 0.5 + 0.35 * 0.2 / 0.4, 0.3, 0.5), W)
    b, _ = to_direction(draft("b", 0.5, 0.5, 0.5), W)
    assert a.composite == pytest.approx(b.composite)
    assert select([a, b]).title == "b"  # type: ignore[union-attr]
    c, _ = to_direction(draft("c", 0.5, 0.5, 0.5), W)
    assert [d.title for d in rank([c, b])] == ["c", "b"]  # full tie: first proposed wins
    assert [d.title for d in rank([b, c])] == ["b", "c"]
    assert select([]) is None


def test_relevant_ids_parsing_and_choice_against_the_pool() -> None:
    assert relevant_ids_from('Done.\n```json\n{"relevant_ids": ["arxiv:1204.5721"]}\n```') == ["arxiv:1204.5721"]
    assert relevant_ids_from("I found nothing useful") is None
    pool = PaperPool()
    seed = make_paper("arxiv", title="Seed", arxiv_id="1605.08386")
    other = make_paper("arxiv", title="Other", arxiv_id="1204.5721")
    pool.add([seed, other])
    chosen = choose_papers(pool, [seed], ["1204.5721v2", "arxiv:1901.00001"], max_papers=10)
    assert [p.paper_id for p in chosen.papers] == ["arxiv:1605.08386", "arxiv:1204.5721"]
    assert chosen.dropped_ids == ["arxiv:1901.00001"]
    capped = choose_papers(pool, [], None, max_papers=1)
    assert [p.paper_id for p in capped.papers] == ["arxiv:1605.08386"] and capped.notes
