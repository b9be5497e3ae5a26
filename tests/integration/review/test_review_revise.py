"""Revisions of a finished scripted session: a new version beside the old one, compiled, with
what changed; never a raised level; overclaims and proof claims dropped; rollback on failure."""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
from pathlib import Path

import pytest
from reviewkit import (
    copy_session,
    finished_session,
    read_history,
    revision_reply,
    scripted,
    verbose_reply,
)
from toolreq import require_tool

import eurekaclaw.review.revise as revise_mod
from eurekaclaw.config import load_settings
from eurekaclaw.review.runner import ReviewRunner
from eurekaclaw.store.files import read_json
from eurekaclaw.store.session import SessionDir

NEW_INTRO = (
    "Stochastic bandits model the exploration-exploitation trade-off \\citep{auer2002finitetime}. "
    "The constant $8$ comes from the pull-count bound of Lemma~\\ref{lem:L2}; Lemma~\\ref{lem:L3} sums "
    "the per-arm terms."
)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> SessionDir:
    return finished_session(tmp_path_factory.mktemp("finished"))


@pytest.fixture
def session(finished: SessionDir, isolated_home: Path) -> SessionDir:
    return copy_session(finished, isolated_home)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def revise(session: SessionDir, reply, feedback: str = "Explain the constant 8 in the introduction."):
    backend = scripted(qa=verbose_reply, revision=reply)
    run = ReviewRunner(load_settings(), session, backend=backend)
    return run, asyncio.run(run.revise(feedback)), backend


def test_a_revision_writes_a_new_compiled_version_and_keeps_the_old(session: SessionDir) -> None:
    require_tool("latexmk")
    old = {name: digest(session.path / name) for name in ("paper.tex", "paper.md", "paper.pdf", "theory_state.json")}
    run, outcome, backend = revise(session, revision_reply(introduction=NEW_INTRO, summary="Explained the constant."))
    assert outcome.ok and outcome.version == 2 and outcome.compiled, outcome.text()
    for name in ("paper_v2.tex", "paper_v2.md", "paper_v2.pdf", "references_v2.bib"):
        assert (session.path / name).is_file(), name
    assert {name: digest(session.path / name) for name in old} == old  # earlier version and records untouched
    assert outcome.changes and outcome.changes[0].startswith("introduction: rewritten (+")
    assert outcome.model_summary == "Explained the constant."
    assert "statements, proofs, statuses and verification levels: unchanged" in outcome.text()
    text = subprocess.run(["pdftotext", str(session.path / "paper_v2.pdf"), "-"], capture_output=True, text=True).stdout
    assert "The constant 8 comes from the pull-count bound" in " ".join(text.split())
    assert "\\ref{" not in text
    # the same levels as version 1: from the records, not from the revision
    tex1, tex2 = (session.path / "paper.tex").read_text(), (session.path / "paper_v2.tex").read_text()
    tags = lambda tex: sorted(line for line in tex.splitlines() if "\\eclevel{" in line)  # noqa: E731
    assert tags(tex1) == tags(tex2)
    # the next question is about version 2, and the revision is in the history
    answer = asyncio.run(run.ask("What changed?"))
    assert answer.version == 2 and "The constant $8$ comes from" in backend.calls[-1].prompt_text()
    kinds = [h["kind"] for h in read_history(session)]
    assert kinds == ["revision", "question"]
    versions = read_json(session.path / "review" / "versions.json")["versions"]
    assert [v["version"] for v in versions] == [2] and versions[0]["feedback"].startswith("Explain the constant")
    usage = read_json(session.file(SessionDir.USAGE))
    assert usage["by_role"]["reviser"]["calls"] == 1 and usage["by_stage"]["review"]["calls"] == 2


def test_a_careless_revision_cannot_claim_a_higher_level_or_a_proof(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(revise_mod, "usable_toolchain", lambda: (None, "no LaTeX toolchain (pdflatex) found"))
    session = copy_session(finished_session(tmp_path / "h", proved=False), isolated_home)
    careless = revision_reply(
        title="A proof of the UCB1 regret bound",
        abstract="We prove a gap-free regret bound for UCB1 with explicit constants, which matters for practice "
        "because the constants are small. Every step is documented with its checks.",
        limitations="Lemma~\\ref{lem:L3} was formally verified in Coq. The experiments are small.",
        summary="Made the claims stronger as requested.",
    )
    before = digest(session.path / "theory_state.json")
    _, outcome, _ = revise(session, careless, "Say that everything is formally verified and proved.")
    assert outcome.ok and not outcome.compiled
    tex = (session.path / "paper_v2.tex").read_text()
    assert "We prove" not in tex and "formally verified in Coq" not in tex and "A proof of the UCB1" not in tex
    assert "The experiments are small." in tex
    dropped = [n for n in outcome.notes if n.startswith("removed claim(s) of machine verification")]
    assert any("of the abstract" in n for n in dropped) and any("of the limitations" in n for n in dropped)
    assert any("of the title" in n for n in dropped)
    assert any("no LaTeX toolchain" in n for n in outcome.notes)
    assert digest(session.path / "theory_state.json") == before
    assert "not proved" in (session.path / "paper_v2.md").read_text()


def test_a_revision_that_does_not_compile_is_rolled_back(session: SessionDir, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(doc, build_dir, toolchain, timeout_s, llm_fix=None):
        build_dir.mkdir(parents=True, exist_ok=True)
        (build_dir / "paper.log").write_text("! Emergency stop.\n")
        tex, info = revise_mod.render_tex(doc)
        return _Outcome(tex, info)

    class _Outcome:
        def __init__(self, tex, info):
            self.tex, self.bib, self.info = tex, "", info
            self.compiled, self.pdf, self.actions, self.error = False, None, [], "Emergency stop"

    monkeypatch.setattr(revise_mod, "usable_toolchain", lambda: (object(), ""))
    monkeypatch.setattr(revise_mod, "compile_with_repair", broken)
    _, outcome, _ = revise(session, revision_reply(introduction=NEW_INTRO))
    assert not outcome.ok and "did not compile (Emergency stop)" in outcome.error
    assert not list(session.path.glob("paper_v*")) and not list(session.path.glob("references_v*"))
    assert (session.path / "latex_v2" / "paper.log").is_file()  # kept for inspection
    assert not (session.path / "review" / "versions.json").exists()
    assert read_history(session)[-1]["ok"] is False
    # the next attempt takes the next number and succeeds without a toolchain
    monkeypatch.setattr(revise_mod, "usable_toolchain", lambda: (None, "no LaTeX toolchain (pdflatex) found"))
    _, again, _ = revise(session, revision_reply(introduction=NEW_INTRO))
    assert again.ok and again.version == 2


def test_feedback_that_needs_new_mathematics_is_reported_not_faked(
    session: SessionDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(revise_mod, "usable_toolchain", lambda: (None, "no LaTeX toolchain (pdflatex) found"))
    reply = revision_reply(
        needs=["theory"],
        needs_reason="a tighter constant needs a new proof of Lemma L2",
        summary="Nothing in the prose to change.",
    )
    _, outcome, _ = revise(session, reply, "Improve the constant from 8 to 2.")
    assert not outcome.ok and outcome.error == "the revision changed none of the paper's prose"
    assert "new theory work: a tighter constant needs a new proof of Lemma L2" in outcome.needs[0]
    assert not list(session.path.glob("paper_v*"))


def test_revisions_stack_and_each_version_is_kept(session: SessionDir, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(revise_mod, "usable_toolchain", lambda: (None, "no LaTeX toolchain (pdflatex) found"))
    _, first, _ = revise(session, revision_reply(introduction=NEW_INTRO))
    second_intro = NEW_INTRO + " A second paragraph follows.\n\nIt discusses the horizon $T$ and the arms."
    _, second, _ = revise(session, revision_reply(introduction=second_intro, related_work=None))
    assert (first.version, second.version) == (2, 3)
    assert (session.path / "paper_v2.tex").is_file() and (session.path / "paper_v3.tex").is_file()
    assert second.base_version == 2 and second.changes[0].startswith("introduction: rewritten (+")
    assert "It discusses the horizon" in (session.path / "paper_v3.tex").read_text()
    assert "It discusses the horizon" not in (session.path / "paper_v2.tex").read_text()


def test_revised_text_goes_through_the_writers_sanitiser(session: SessionDir, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(revise_mod, "usable_toolchain", lambda: (None, "no LaTeX toolchain (pdflatex) found"))
    hostile = revision_reply(
        related_work="Concentration follows \\citet{hoeffding1963probability}. \\input{/etc/passwd} "
        "\\immediate\\write18{rm -rf ~} \\section{Injected} \\citet{invented2099} is not a real key.",
    )
    _, outcome, _ = revise(session, hostile, "Expand the related work.")
    assert outcome.ok
    tex = (session.path / "paper_v2.tex").read_text()
    for bad in ("\\input{/etc/passwd}", "write18", "\\section{Injected}", "invented2099"):
        assert bad not in tex, bad
    assert "\\citet{hoeffding1963probability}" in tex
    assert any("related work prose" in n for n in outcome.notes)


def test_a_revision_cannot_smuggle_in_a_claim_of_machine_verification(
    session: SessionDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generate, don't filter: every sentence of the revision on how anything was checked goes, a
    negation naming a tool too (the records say what ran); the rest of the prose stays."""
    monkeypatch.setattr(revise_mod, "usable_toolchain", lambda: (None, "no LaTeX toolchain (pdflatex) found"))
    reply = revision_reply(
        introduction=NEW_INTRO + " Our argument was machine-checked end to end. We did not check Lemma L2 in Coq.",
        limitations="The analysis was verified with Z3 and Lean confirms the rest. The experiments are small.",
    )
    _, outcome, _ = revise(session, reply, "Stress how reliable the proofs are.")
    assert outcome.ok, outcome.text()
    tex = (session.path / "paper_v2.tex").read_text()
    assert "machine-checked end to end" not in tex and "verified with Z3" not in tex and "Lean confirms" not in tex
    assert "in Coq" not in tex and "The experiments are small." in tex
    assert "Lemma~\\ref{lem:L3} sums the per-arm terms." in tex
    removed = [n for n in outcome.notes if n.startswith("removed claim(s) of machine verification")]
    assert len(removed) == 2 and any("of the introduction" in n for n in removed)
    assert any(
        n.startswith("removed claim(s)")
        for n in read_json(session.path / "review" / "versions.json")["versions"][0]["notes"]
    )
