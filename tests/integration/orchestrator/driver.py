"""Run the orchestrator in its own process (for the SIGKILL/resume test).

usage: driver.py run|resume [session_id]   (EUREKACLAW_DIR and STEP_LOG come from the env)
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_stages import CountingStage, StepStage  # noqa: E402

from eurekaclaw.config import load_settings  # noqa: E402
from eurekaclaw.llm.scripted import ScriptedBackend  # noqa: E402
from eurekaclaw.orchestrator.meta import MetaOrchestrator  # noqa: E402
from eurekaclaw.store.session import Workspace  # noqa: E402
from eurekaclaw.types.tasks import InputSpec  # noqa: E402


def reply(request):
    return "done " + request.prompt_text()


def main() -> None:
    log = Path(os.environ["STEP_LOG"])
    stages = {
        "survey": CountingStage("survey", counter=log.with_suffix(".stages")),
        "formalize": None,
        "theory": StepStage("theory", steps=8, delay_s=float(os.environ.get("STEP_DELAY", "0.2")), log=log),
        "experiment": None,
        "write": CountingStage("write", counter=log.with_suffix(".stages")),
        "evaluate": None,
        "learn": None,
    }
    orch = MetaOrchestrator(load_settings(), backend=ScriptedBackend(responder=reply), stages=stages, plugins={})
    if sys.argv[1] == "run":
        result = asyncio.run(orch.run(InputSpec(mode="prove", statement="1+1=2")))
    else:
        session = Workspace(load_settings().eurekaclaw_dir).resolve(sys.argv[2])
        result = asyncio.run(orch.resume(session))
    print(result.model_dump_json())


if __name__ == "__main__":
    main()
