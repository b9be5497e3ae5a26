"""Theory-stage scheduling: wall time on DAGs of different shapes, against the critical path
(the best any scheduler can do with unlimited workers) and against proving the lemmas one by one.

Every model call is answered by the scripted backend after a fixed delay, so a lemma costs two
delays (prover + verifier) and the final consistency check one more. Persistence (atomic,
fsynced writes of the TheoryState after every lemma outcome) is included, as in a real run.

    python benchmarks/theory_schedule.py [--delay 0.05] [--concurrency 16]

Prints one line per shape; the figure to compare is ratio_to_critical (target <= 1.5).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eurekaclaw.agents.base import AgentContext  # noqa: E402
from eurekaclaw.agents.formalize.dag import heights  # noqa: E402
from eurekaclaw.agents.theory.stage import TheoryStage  # noqa: E402
from eurekaclaw.config import load_settings  # noqa: E402
from eurekaclaw.knowledge_bus.bus import KnowledgeBus  # noqa: E402
from eurekaclaw.llm.ledger import UsageLedger  # noqa: E402
from eurekaclaw.llm.scripted import ScriptedBackend  # noqa: E402
from eurekaclaw.llm.session_client import SessionLLM  # noqa: E402
from eurekaclaw.memory.episodic import EpisodicMemory  # noqa: E402
from eurekaclaw.store.session import SessionDir  # noqa: E402
from eurekaclaw.tools.base import ToolRegistry  # noqa: E402
from eurekaclaw.types.artifacts import LemmaNode, TheoryState  # noqa: E402
from eurekaclaw.types.tasks import InputSpec  # noqa: E402

CALLS_PER_LEMMA = 2  # prover + verifier when the first attempt passes


def _nodes(edges: dict[str, list[str]], root: str) -> dict[str, LemmaNode]:
    return {
        lid: LemmaNode(id=lid, statement=f"lemma {lid}", dependencies=deps, is_root=lid == root)
        for lid, deps in edges.items()
    }


def chain(n: int = 8) -> dict[str, LemmaNode]:
    edges = {f"L{i}": ([f"L{i - 1}"] if i else []) for i in range(n - 1)}
    edges["T"] = [f"L{n - 2}"]
    return _nodes(edges, "T")


def wide(n: int = 16) -> dict[str, LemmaNode]:
    edges: dict[str, list[str]] = {f"L{i}": [] for i in range(n)}
    edges["T"] = list(edges)
    return _nodes(edges, "T")


def diamond(width: int = 6) -> dict[str, LemmaNode]:
    edges: dict[str, list[str]] = {"base": []}
    edges.update({f"M{i}": ["base"] for i in range(width)})
    edges["top"] = [f"M{i}" for i in range(width)]
    edges["T"] = ["top"]
    return _nodes(edges, "T")


def tree(depth: int = 4) -> dict[str, LemmaNode]:
    edges: dict[str, list[str]] = {}

    def build(name: str, level: int) -> None:
        kids = [f"{name}{c}" for c in "ab"] if level < depth - 1 else []
        edges[name] = kids
        for kid in kids:
            build(kid, level + 1)

    build("T", 0)
    return _nodes(edges, "T")


async def _respond(request, delay: float):
    await asyncio.sleep(delay)
    if request.role == "prover":
        return {"proof": f"proof of {request.lemma_id}", "self_assessment": {"confidence": 0.9}}
    if request.role == "verifier":
        return {"verdict": "pass", "confidence": 0.9, "errors": []}
    return {
        "proves_statement": True,
        "assumptions_respected": True,
        "cited_lemmas_used_correctly": True,
        "verdict": "consistent",
        "issues": [],
    }


async def measure(dag: dict[str, LemmaNode], delay: float, concurrency: int, workdir: Path) -> float:
    session = SessionDir(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    ctx = AgentContext(
        session_id=workdir.name,
        settings=load_settings(theory_concurrency=concurrency),
        bus=KnowledgeBus(workdir.name, workdir),
        llm=SessionLLM(ScriptedBackend(responder=lambda r: _respond(r, delay)), UsageLedger(None)),
        tools=ToolRegistry(),
        episodic=EpisodicMemory(workdir.name),
        session=session,
    )
    ctx.bus.put_theory_state(TheoryState(formal_statement="main", lemma_dag=dag))
    start = time.perf_counter()
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))
    wall = time.perf_counter() - start
    assert ctx.bus.get_theory_state().status == "proved"
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.05, help="seconds per model call")
    parser.add_argument("--concurrency", type=int, default=16, help="THEORY_CONCURRENCY")
    args = parser.parse_args()
    lemma_s = CALLS_PER_LEMMA * args.delay
    print(f"# delay={args.delay}s per call, concurrency={args.concurrency}, cpus={os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        # First use pays one-time costs (imports, template compilation); keep them out.
        warm = asyncio.run(measure(chain(2), args.delay, args.concurrency, Path(tmp) / "warmup"))
        print(f"# warm-up run (2 lemmas, one-time costs included): {warm:.3f}s")
        for name, dag in (("chain", chain()), ("wide", wide()), ("diamond", diamond()), ("tree", tree())):
            levels = max(heights(dag).values())
            critical = levels * lemma_s + args.delay
            with_limit = max(levels, math.ceil(len(dag) / args.concurrency)) * lemma_s + args.delay
            sequential = len(dag) * lemma_s + args.delay
            wall = asyncio.run(measure(dag, args.delay, args.concurrency, Path(tmp) / name))
            print(
                f"shape={name} lemmas={len(dag)} depth={levels} wall_s={wall:.3f} "
                f"critical_s={critical:.3f} ratio_to_critical={wall / critical:.2f} "
                f"bound_with_concurrency_s={with_limit:.3f} ratio_to_bound={wall / with_limit:.2f} "
                f"sequential_s={sequential:.3f} "
                f"speedup_vs_sequential={sequential / wall:.2f}"
            )


if __name__ == "__main__":
    main()
