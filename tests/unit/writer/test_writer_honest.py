"""Honest prose: the title never restates the statement in the model's own formulas, and the
deterministic prose names a domain's shipped classics only where a lemma cites them."""

from __future__ import annotations

import writer_helpers as wh

from domains.mab import MABPlugin
from eurekaclaw.agents.writer.bibtex import CitePlan
from eurekaclaw.agents.writer.honest import check_title, paraphrased_math
from eurekaclaw.agents.writer.prose import fallback_prose

STATEMENT = r"For all $K \ge 2$ and $T \ge K$, $\mathbb{E}[R_T] \le 8\sqrt{K T \log T} + 2K$."


def test_a_title_that_drops_a_term_is_replaced() -> None:
    title = r"A regret bound $\mathbb{E}[R_T] \le 8\sqrt{K T \log T}$ for all $i$"
    assert paraphrased_math(title, [STATEMENT, ""]) == [r"\mathbb{E}[R_T] \le 8\sqrt{K T \log T}", "i"]
    prose, notes = check_title({"title": title, "abstract": "x"}, [STATEMENT], "Fallback title")
    assert prose["title"] == "Fallback title" and prose["abstract"] == "x"
    assert notes and "own formulas" in notes[0]


def test_a_title_quoting_the_statement_or_without_math_stays() -> None:
    for title in (r"Regret of UCB1: $\mathbb{E}[R_T] \le 8\sqrt{KT\log T} + 2K$", "A gap-free bound for UCB1"):
        prose, notes = check_title({"title": title}, [STATEMENT], "Fallback")
        assert prose["title"] == title and notes == []


def test_fallback_prose_names_only_the_classics_a_lemma_cites() -> None:
    plan = CitePlan()
    plan.add_shipped(MABPlugin().get_references())
    prose = fallback_prose(wh.theory(), plan, None)  # L1 cites Hoeffding's DOI
    assert "hoeffding1963probability" in prose["related_work"]
    assert "lai1985asymptotically" not in prose["related_work"]
    assert "thompson1933likelihood" not in prose["related_work"]
