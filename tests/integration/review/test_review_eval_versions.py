"""After `review --revise`, the evaluation scores the current paper version and names it: a
theory revision's report, a later `eval-session`, and a prose revision (scored again with the
earlier novelty judgement, no new model call)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from reviewkit import copy_session, finished_session, revision_reply, scripted, verbose_reply

from eurekaclaw.agents.evaluate import evaluate_session
from eurekaclaw.agents.writer.render import cited_keys
from eurekaclaw.config import load_settings
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.review.runner import ReviewRunner
from eurekaclaw.store.files import read_json
from eurekaclaw.store.session import SessionDir

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("restage_responder", HERE / "restage_responder.py")
assert _spec and _spec.loader
responder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(responder)

FIX_L2 = "THEORY: the proof of Lemma L2 skips the union bound; fix it."
# the revised related work cites the survey too
NEW_RELATED = (
    "Concentration follows \\citet{hoeffding1963probability}; the finite-time analysis is "
    "\\citet{auer2002finitetime}, surveyed with its successors by \\citet{bubeck2012regret}."
)
CITE = re.compile(r"\\cite[tp]?\*?(\[[^\]]*\])*\{[^}]*\}")


def uncited_version_1(session: SessionDir) -> None:
    """Version 1 without its citations, so the versions cite differently (the fixture's papers
    cite the same works from their lemmas whatever the prose says)."""
    tex = session.path / "paper.tex"
    tex.write_text(CITE.sub("", tex.read_text()))
    assert not cited_keys(tex.read_text())


@pytest.fixture(scope="module")
def unproved(tmp_path_factory: pytest.TempPathFactory) -> SessionDir:
    return finished_session(tmp_path_factory.mktemp("unproved"), proved=False)


@pytest.fixture(scope="module")
def proved(tmp_path_factory: pytest.TempPathFactory) -> SessionDir:
    return finished_session(tmp_path_factory.mktemp("proved"))


def evaluated(session: SessionDir) -> dict:
    """Version 1 scored the way the session's Evaluate stage scores it (no model: no judgement)."""
    asyncio.run(evaluate_session(session.path, load_settings(), None, embedder=None))
    return read_json(session.path / "eval_report.json")


def coverage(report: dict) -> dict:
    return next(d for d in report["dimensions"] if d["name"] == "citation_coverage")


def eval_session_cli(session: SessionDir, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    env.update({"EUREKACLAW_DIR": str(home), "EUREKACLAW_OFFLINE": "1", "COLUMNS": "200", "NO_COLOR": "1"})
    return subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "eval-session", session.session_id, "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_eval_session_after_a_theory_revision_scores_the_current_version(
    unproved: SessionDir, isolated_home: Path
) -> None:
    session = copy_session(unproved, isolated_home)
    uncited_version_1(session)
    v1 = evaluated(session)
    assert v1["paper_version"] == 1
    run = ReviewRunner(load_settings(), session, backend=ScriptedBackend(responder=responder.respond, model="restage"))
    outcome = asyncio.run(run.revise(FIX_L2))
    assert outcome.ok and outcome.version == 2, outcome.text()
    revised = read_json(session.path / "eval_report.json")
    assert revised["paper_version"] == 2 and revised["notes"][0].startswith("scores paper version 2")
    v2_keys = set(cited_keys((session.path / "paper_v2.tex").read_text()))
    assert v2_keys and not coverage(v1)["inputs"]["cited_keys"]
    proc = eval_session_cli(session, isolated_home)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["paper_version"] == 2
    assert report["notes"][0] == "scores paper version 2, the current one (paper_v2.tex)"
    assert set(coverage(report)["inputs"]["cited_keys"]) == v2_keys
    assert read_json(session.path / "eval_report.json")["paper_version"] == 2  # never overwritten by version 1


def test_eval_session_without_revisions_behaves_as_before(proved: SessionDir, isolated_home: Path) -> None:
    session = copy_session(proved, isolated_home)
    proc = eval_session_cli(session, isolated_home)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["paper_version"] == 1 and not any("paper version" in n for n in report["notes"])
    assert set(coverage(report)["inputs"]["cited_keys"]) == set(cited_keys((session.path / "paper.tex").read_text()))


def test_a_prose_revision_is_scored_again_and_names_its_version(proved: SessionDir, isolated_home: Path) -> None:
    session = copy_session(proved, isolated_home)
    uncited_version_1(session)
    v1 = evaluated(session)
    backend = scripted(qa=verbose_reply, revision=revision_reply(related_work=NEW_RELATED))
    outcome = asyncio.run(
        ReviewRunner(load_settings(), session, backend=backend).revise("Cite the survey of Bubeck and Cesa-Bianchi.")
    )
    assert outcome.ok and outcome.version == 2, outcome.text()
    assert {c.role for c in backend.calls} <= {"revision_scope", "reviser"}  # no novelty judge was asked
    report = read_json(session.path / "eval_report.json")
    assert report["paper_version"] == 2
    assert report["notes"][0] == "scores paper version 2, the current one (paper_v2.tex)"
    assert any(n.startswith("novelty: the judgement of the evaluation of version 1 is reused") for n in report["notes"])
    keys = set(coverage(report)["inputs"]["cited_keys"])
    assert keys == set(cited_keys((session.path / "paper_v2.tex").read_text())) and "bubeck2012regret" in keys
    assert not coverage(v1)["inputs"]["cited_keys"]
    # version 1's report is kept; the version list records the new total
    assert read_json(session.path / "review" / "v1" / "eval_report.json")["paper_version"] == 1
    assert read_json(session.path / "review" / "versions.json")["versions"][-1]["eval_total"] == report["total"]
    assert any(n.startswith("evaluation of version 2: total") for n in outcome.notes)
