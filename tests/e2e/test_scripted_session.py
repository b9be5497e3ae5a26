"""Whole sessions through the real `eurekaclaw` command, offline, with the scripted backend
playing the model (tests/e2e/demo_responder.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from toolreq import require_tool

from eurekaclaw.store.files import read_json, read_jsonl

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
RESPONDER = HERE / "demo_responder.py"
STATEMENT = "For all real x, x^2 - 2x + 1 >= 0"


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_COMPAT_", "LLM_BACKEND"))}
    env.update({"EUREKACLAW_DIR": str(home), "EUREKACLAW_OFFLINE": "1", "COLUMNS": "200", "NO_COLOR": "1"})
    env.update(extra)
    return env


def cli(*args: str, home: Path, cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "eurekaclaw", *args],
        capture_output=True,
        text=True,
        env=cli_env(home, **extra),
        cwd=cwd,
        timeout=600,
    )


def test_a_proved_session_end_to_end(tmp_path: Path) -> None:
    require_tool("latexmk")
    home, out = tmp_path / "home", tmp_path / "out"
    proc = cli("prove", STATEMENT, "--llm", f"scripted:{RESPONDER}", "--json", "-o", str(out), home=home, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "completed"
    assert result["theory_status"] == "proved"
    assert result["weakest_level"] == "smt"
    assert [s["status"] for s in result["stages"]] == ["completed"] * 7
    session = Path(result["session_dir"])

    theory = read_json(session / "theory_state.json")
    assert set(theory["proven_lemmas"]) == {"L1", "T"}
    for record in theory["proven_lemmas"].values():
        verdicts = {c["checker"]: c["verdict"] for c in record["checks"]}
        assert verdicts["z3"] == "passed" and verdicts["falsifier"] == "passed"
        assert verdicts["llm_review"] == "passed"
    assert theory["consistency_check"]["verdict"] == "passed"

    for name in ("paper.tex", "paper.md", "references.bib", "paper.pdf", "eval_report.json", "usage.json"):
        assert (out / name).is_file(), name
    text = subprocess.run(["pdftotext", str(out / "paper.pdf"), "-"], capture_output=True, text=True).stdout
    assert "smt" in text and "Theorem" in text

    usage = read_json(session / "usage.json")
    log = read_jsonl(session / "llm_log.jsonl")
    assert usage["calls"] == result["llm_calls"] == len([e for e in log if e["response"] is not None])
    assert set(usage["by_stage"]) >= {"formalize", "theory"}

    # the evaluation can be recomputed from the saved session, and the session is listed
    def judgements() -> int:
        return sum(1 for e in read_jsonl(session / "llm_log.jsonl") if e["request"]["role"] == "evaluate")

    judged = judgements()
    assert judged >= 1
    ev = cli(
        "eval-session", result["session_id"][:8], "--llm", f"scripted:{RESPONDER}", "--json", home=home, cwd=tmp_path
    )
    assert ev.returncode == 0, ev.stderr
    assert json.loads(ev.stdout)["total"] == pytest.approx(read_json(out / "eval_report.json")["total"], abs=1e-6)
    assert judgements() == judged  # the stored novelty judgement is reused: no new model call
    assert any("reused" in note for note in json.loads(ev.stdout)["notes"])
    fresh = cli(
        "eval-session",
        result["session_id"][:8],
        "--llm",
        f"scripted:{RESPONDER}",
        "--refresh",
        "--json",
        home=home,
        cwd=tmp_path,
    )
    assert fresh.returncode == 0, fresh.stderr
    assert judgements() == judged + 1
    listed = json.loads(cli("sessions", "--json", home=home, cwd=tmp_path).stdout)
    assert [m["session_id"] for m in listed] == [result["session_id"]]
    assert listed[0]["theory_status"] == "proved"

    # the run can be replayed from its log, reaching the same proofs with no model at all
    replay = cli(
        "prove",
        STATEMENT,
        "--llm",
        f"replay:{result['session_id']}",
        "--json",
        "-o",
        str(tmp_path / "out2"),
        home=home,
        cwd=tmp_path,
    )
    assert replay.returncode == 0, replay.stderr
    replayed = read_json(Path(json.loads(replay.stdout)["session_dir"]) / "theory_state.json")
    assert {k: v["proof"] for k, v in replayed["proven_lemmas"].items()} == {
        k: v["proof"] for k, v in theory["proven_lemmas"].items()
    }


def test_a_model_that_answers_garbage_never_yields_proved(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proc = cli(
        "prove",
        STATEMENT,
        "--llm",
        f"scripted:{RESPONDER}",
        "--json",
        "-o",
        str(tmp_path / "out"),
        home=home,
        cwd=tmp_path,
        DEMO_GARBAGE="1",
    )
    assert proc.returncode == 1, proc.stderr  # partial
    assert "Traceback" not in proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "partial"
    assert result["theory_status"] != "proved"
    stages = {s["name"]: s for s in result["stages"]}
    assert stages["formalize"]["status"] == "failed" and stages["formalize"]["reason"]
    assert stages["theory"]["status"] == "skipped" and stages["theory"]["reason"]
    assert stages["write"]["status"] == "completed"
    session = Path(result["session_dir"])
    assert (session / "paper.md").is_file() and (session / "paper.tex").is_file()
    assert "conjecture" in (session / "paper.md").read_text().lower()


def test_kill_during_theory_then_resume_from_the_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = cli_env(home, DEMO_DELAY_S="0.4")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "eurekaclaw",
            "prove",
            STATEMENT,
            "--llm",
            f"scripted:{RESPONDER}",
            "-o",
            str(tmp_path / "o"),
        ],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    session_dir = None
    while time.monotonic() < deadline and proc.poll() is None:
        states = list((home / "runs").glob("*/theory_state.json")) if (home / "runs").exists() else []
        if states and "L1" in (read_json(states[0], {}) or {}).get("proven_lemmas", {}):
            session_dir = states[0].parent
            break
        time.sleep(0.05)
    assert session_dir is not None, "the run never proved its first lemma"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    first_proof = read_json(session_dir / "theory_state.json")["proven_lemmas"]["L1"]
    prover_calls_before = sum(1 for e in read_jsonl(session_dir / "llm_log.jsonl") if e["request"]["role"] == "prover")

    listed = json.loads(cli("sessions", "--json", home=home, cwd=tmp_path).stdout)
    assert listed[0]["status"] == "interrupted"  # it died without a clean stop; resume picks it up
    resumed = cli("resume", session_dir.name[:8], "--llm", f"scripted:{RESPONDER}", "--json", home=home, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["theory_status"] == "proved"
    theory = read_json(session_dir / "theory_state.json")
    assert theory["proven_lemmas"]["L1"]["proof"] == first_proof["proof"]
    assert theory["proven_lemmas"]["L1"]["created_at"] == first_proof["created_at"]  # not proved twice
    prover_lemmas_after = [
        e["request"]["lemma_id"] for e in read_jsonl(session_dir / "llm_log.jsonl") if e["request"]["role"] == "prover"
    ][prover_calls_before:]
    assert "L1" not in prover_lemmas_after


def test_human_gate_answers_on_a_terminal_and_never_waits_without_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    args = ["-m", "eurekaclaw", "prove", STATEMENT, "--llm", f"scripted:{RESPONDER}", "--gate", "human", "--json"]
    # a human gate asks on a terminal: answer yes once (before formalize), then no (before theory)
    primary, secondary = os.openpty()
    try:
        os.write(primary, b"y\nn\n")
        proc = subprocess.run(
            [sys.executable, *args, "-o", str(tmp_path / "a")],
            stdin=secondary,
            capture_output=True,
            text=True,
            env=cli_env(home),
            cwd=tmp_path,
            timeout=300,
        )
    finally:
        os.close(secondary)
        os.close(primary)
    assert proc.returncode == 130, proc.stderr
    assert "resume" in proc.stderr
    listed = json.loads(cli("sessions", "--json", home=home, cwd=tmp_path).stdout)
    assert listed[0]["status"] == "paused"
    session = home / "runs" / listed[0]["session_id"]
    pipeline = {s["name"]: s["status"] for s in read_json(session / "pipeline.json")["stages"]}
    assert pipeline["formalize"] == "completed" and pipeline["theory"] == "pending"

    resume = [sys.executable, "-m", "eurekaclaw", "resume", listed[0]["session_id"], "--llm", f"scripted:{RESPONDER}"]
    # no terminal on stdin: a human gate would wait forever, so the resume refuses at once
    refused = subprocess.run(
        [*resume, "--json"], input="", capture_output=True, text=True, env=cli_env(home), cwd=tmp_path, timeout=300
    )
    assert refused.returncode == 2, refused.stderr
    assert "--gate human needs a terminal" in refused.stderr and "Traceback" not in refused.stderr
    # ... and `resume --gate auto` goes on unattended
    resumed = subprocess.run(
        [*resume, "--gate", "auto", "--json"],
        input="",
        capture_output=True,
        text=True,
        env=cli_env(home),
        cwd=tmp_path,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["theory_status"] == "proved"
    assert read_json(session / "session.json")["gate_mode"] == "auto"


def test_human_gate_without_a_terminal_is_refused_before_any_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proc = subprocess.run(
        [sys.executable, "-m", "eurekaclaw", "prove", STATEMENT, "--llm", f"scripted:{RESPONDER}", "--gate", "human"],
        input="y\n",
        capture_output=True,
        text=True,
        env=cli_env(home),
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "--gate human needs a terminal" in proc.stderr
    assert not (home / "runs").exists() or not any((home / "runs").iterdir())


def test_doctor_reports_tools_and_checkers_without_network(tmp_path: Path) -> None:
    proc = cli("doctor", "--json", home=tmp_path / "home", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    names = {t["name"]: t for t in report["tools"]}
    assert {"coqc", "latexmk", "lean", "llama_cpp", "z3"} <= set(names)
    assert names["z3"]["available"] is True
    checkers = {c["name"] for c in report["checkers"]}
    assert {"falsifier", "z3", "coq"} <= checkers
    assert "online" not in report


def test_doctor_names_the_review_model_or_says_reviews_are_self_reviews(tmp_path: Path) -> None:
    plain = json.loads(cli("doctor", "--json", home=tmp_path / "home", cwd=tmp_path).stdout)
    assert plain["review_llm"]["backend"] is None and "self-review" in plain["review_llm"]["note"]
    set_ = cli("doctor", home=tmp_path / "home", cwd=tmp_path, REVIEW_LLM=f"scripted:{RESPONDER}")
    assert "review model: scripted" in set_.stdout
