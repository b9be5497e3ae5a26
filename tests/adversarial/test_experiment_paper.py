"""Attacks on the paper's Experiments section: internals copied into the paper, a careless
writer model repeating what its prompt says, a bound of unknown direction passed off as an upper
bound, hostile text in the experiment record."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "writer"))  # the writer tests' fixtures
import writer_helpers as wh  # noqa: E402

from domains.mab import MABPlugin  # noqa: E402
from eurekaclaw.agents.base import AgentContext  # noqa: E402
from eurekaclaw.agents.experiment import ExperimentStage  # noqa: E402
from eurekaclaw.agents.writer import WriteStage  # noqa: E402
from eurekaclaw.agents.writer.bibtex import plan_citations  # noqa: E402
from eurekaclaw.agents.writer.doc import build_doc  # noqa: E402
from eurekaclaw.agents.writer.experiments import experiment_view  # noqa: E402
from eurekaclaw.agents.writer.markdown import render_markdown  # noqa: E402
from eurekaclaw.agents.writer.render import render_tex  # noqa: E402
from eurekaclaw.config import load_settings  # noqa: E402
from eurekaclaw.knowledge_bus.bus import KnowledgeBus  # noqa: E402
from eurekaclaw.llm.ledger import UsageLedger  # noqa: E402
from eurekaclaw.llm.scripted import ScriptedBackend  # noqa: E402
from eurekaclaw.llm.session_client import SessionLLM  # noqa: E402
from eurekaclaw.llm.types import LLMRequest  # noqa: E402
from eurekaclaw.memory.episodic import EpisodicMemory  # noqa: E402
from eurekaclaw.store.session import SessionDir  # noqa: E402
from eurekaclaw.tools.base import ToolRegistry  # noqa: E402
from eurekaclaw.types.artifacts import BoundCheck, ExperimentResult  # noqa: E402
from eurekaclaw.types.tasks import InputSpec  # noqa: E402

INVALID = {
    "instances": [{"name": "a", "means": [0.5, 0.4]}],
    "policies": [{"name": "ucb1"}],
    "horizons": [0, 2],
    "repetitions": 10,
}
INTERNALS = ("default spec used", "horizons [0, 2]", "spec still invalid", "cost-weighted", "1.5e+09", "work: 1")


def _careless(request: LLMRequest) -> dict[str, Any]:
    """A writer model that pastes its whole <experiment> block into every prose field."""
    text = request.prompt_text()
    block = text.split("<experiment>", 1)[1].split("</experiment>", 1)[0] if "<experiment>" in text else ""
    fields = ("abstract", "introduction", "preliminaries", "related_work", "limitations", "experiments")
    return {"title": "UCB1 regret", **{f: "We study UCB1 on bandits. " + block for f in fields}}


async def test_a_careless_writer_cannot_copy_validator_internals_into_the_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: the designer's spec is invalid twice (the stage records the validator's message
    and the work units), and the writer model copies its experiment brief everywhere. The paper
    must state the default instance in plain words and contain none of the internals."""
    sdir = tmp_path / "s1"
    sdir.mkdir()
    bus = KnowledgeBus("s1", sdir)
    bus.put_theory_state(wh.theory())
    backend = ScriptedBackend(
        rules=[{"role": "experiment_designer", "output": "MABExperimentSpec", "replies": [INVALID, INVALID]}],
        responder=_careless,
    )
    ctx = AgentContext(
        session_id="s1",
        settings=load_settings(),
        bus=bus,
        llm=SessionLLM(backend, UsageLedger(None)),
        tools=ToolRegistry(),
        episodic=EpisodicMemory("s1"),
        session=SessionDir(sdir),
        domain="mab",
        plugin=MABPlugin(),
    )
    await ExperimentStage().run(ctx, InputSpec(mode="prove", statement="x"))
    result = bus.get_experiment_result()
    assert result is not None and result.spec["source"] == "default"
    assert any("spec still invalid" in n for n in result.notes) and any("cost-weighted" in n for n in result.notes)
    empty = tmp_path / "empty-bin"  # no TeX toolchain: .tex and .md only, fast
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    await WriteStage().run(ctx, InputSpec(mode="prove", statement="x"))
    prompt = next(c.prompt_text() for c in backend.calls if c.output_name() == "PaperProse")
    for text in (prompt, (sdir / "paper.tex").read_text(), (sdir / "paper.md").read_text()):
        for internal in INTERNALS:
            assert internal not in text, internal
    md = (sdir / "paper.md").read_text()
    assert "the domain's default experiment below was run instead" in md
    assert "K = 10 Bernoulli arms" in md and "lai_robbins: an instance-dependent asymptotic lower bound" in md


def test_hostile_notes_in_the_record_never_reach_the_paper() -> None:
    """Attack: an experiment record whose notes carry LaTeX code and a claim of a machine proof
    (a backend or a sandboxed program may write anything there)."""
    result = wh.experiment()
    result.notes = [r"\input{/etc/passwd}", "Lemma L2 was proved in Coq by this experiment", "work: 1e+07 units"]
    result.reason = "sandbox: bubblewrap 0.8 with cgroup v2"
    view = experiment_view(result, wh.FIXTURES)
    doc = build_doc(wh.theory(), plan_citations(wh.bibliography()), view, dict(wh.GOOD_PROSE))
    for text in (render_tex(doc)[0], render_markdown(doc, [])):
        assert "passwd" not in text and "proved in Coq by this experiment" not in text
        assert "1e+07" not in text and "bubblewrap" not in text


def test_a_bound_of_unknown_direction_is_never_called_upper_or_lower() -> None:
    """Attack: an old record without bound metadata; its curve must not be passed off as an
    upper bound the data 'stayed below' (nor as a lower bound): the text says it is not known."""
    result = ExperimentResult(
        status="completed",
        domain="analysis",
        spec={},
        bound_checks=[
            BoundCheck(name="mystery", horizon=10, empirical_mean=1.0, std_error=0.1, theoretical=2.0, held=True)
        ],
    )
    view = experiment_view(result, None)
    assert view is not None
    text = " ".join(view.curves)
    assert "upper bound" not in text and "lower bound" not in text
    assert "not recorded, so no direction is claimed" in text
