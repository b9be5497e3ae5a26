"""`eurekaclaw review` through the real command: --ask/--json, --revise, --history, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reviewkit import cli, finished_session

HERE = Path(__file__).resolve().parent
RESPONDER = HERE / "review_responder.py"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("home")
    return root, finished_session(root).session_id


def test_ask_json_shows_the_corrected_answer_and_cost(home: tuple[Path, str]) -> None:
    root, sid = home
    proc = cli(sid[:8], "--ask", "Is L2 machine-checked?", "--json", "--llm", f"scripted:{RESPONDER}", home=root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    answer = data["answers"][0]
    assert answer["answer"] == "Lemma L2 bounds the pulls of a suboptimal arm."
    # the model's sentence on how L2 was checked is not shown; the record is
    assert answer["corrections"] == [
        "Lemma L2 is recorded at level reviewed (a sentence of the model was not shown: it speaks of how a "
        "result was checked ('formally'))"
    ]
    assert answer["cites"] == {"sections": ["introduction"], "lemmas": ["L2"], "theorem": False}
    assert data["review_calls"] >= 1 and data["cost_known"] is True


def test_revise_then_history_and_interactive_input(home: tuple[Path, str]) -> None:
    root, sid = home
    proc = cli(sid, "--revise", "Say how L2 was checked.", "--llm", f"scripted:{RESPONDER}", home=root)
    assert proc.returncode == 0, proc.stderr
    assert "paper version 2 written (paper_v2.tex)" in proc.stdout and "limitations: rewritten" in proc.stdout
    hist = cli(sid, "--history", "--json", home=root)  # no model needed
    assert hist.returncode == 0, hist.stderr
    data = json.loads(hist.stdout)
    assert data["current_version"] == 2 and [v["version"] for v in data["versions"]] == [2]
    piped = cli(sid, "--llm", f"scripted:{RESPONDER}", home=root, stdin="What is L2?\n:quit\n")
    assert piped.returncode == 0, piped.stderr
    assert "Corrected from the session's records" in piped.stdout and "review:" in piped.stdout


def test_user_errors_are_one_line_with_exit_2(home: tuple[Path, str]) -> None:
    root, sid = home
    unknown = cli("abcdef123456", "--ask", "x", "--llm", f"scripted:{RESPONDER}", home=root)
    assert unknown.returncode == 2 and "no session matches" in unknown.stderr and "Traceback" not in unknown.stderr
    empty = cli(sid, "--ask", "   ", "--llm", f"scripted:{RESPONDER}", home=root)
    assert empty.returncode == 2 and "the question is empty" in empty.stderr
    replay = cli(sid, "--ask", "x", "--llm", f"replay:{sid}", home=root)
    assert replay.returncode == 2 and "replay" in replay.stderr
