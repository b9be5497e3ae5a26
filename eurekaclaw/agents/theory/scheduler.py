"""The scheduler: every lemma whose dependencies are all proven is attempted, at most
THEORY_CONCURRENCY at once; the lemma with the longest chain above it goes first (critical
path), and the main theorem comes last because it depends on everything.

On the way out — normal end, cancellation (Ctrl+C, pause), budget, or a crash — the lemmas in
flight go back to "pending", so the saved TheoryState is always one a resume can continue."""

from __future__ import annotations

import asyncio

from eurekaclaw.agents.formalize.dag import heights, topological
from eurekaclaw.agents.theory.lemma_loop import LemmaWorker
from eurekaclaw.agents.theory.run import TheoryRun


class Scheduler:
    def __init__(self, run: TheoryRun) -> None:
        self.run = run
        self.limit = run.settings.theory_concurrency
        self.semaphore = asyncio.Semaphore(self.limit)
        self.worker = LemmaWorker(run)
        self.tasks: dict[asyncio.Task[str], str] = {}

    def ready(self) -> list[str]:
        state = self.run.state
        dag = state.lemma_dag
        active = self.run.active()
        order = topological(dag, active)
        rank = heights(dag, active)
        ready = [
            lid
            for lid in order
            if dag[lid].status == "pending"
            and lid not in self.run.in_flight
            and all(d in state.proven_lemmas for d in dag[lid].dependencies)
        ]
        return sorted(ready, key=lambda lid: -rank[lid])  # stable: ties keep dependency order

    async def _one(self, lemma_id: str) -> str:
        async with self.semaphore:
            return await self.worker.prove(lemma_id)

    def _launch(self) -> None:
        for lid in self.ready()[: max(0, self.limit - len(self.tasks))]:
            self.run.in_flight.add(lid)
            self.tasks[asyncio.create_task(self._one(lid), name=f"lemma:{lid}")] = lid

    async def run_all(self) -> None:
        launching = True
        try:
            while self.run.state.status != "refuted":
                if launching:
                    self._launch()
                if not self.tasks:
                    return
                done, _ = await asyncio.wait(self.tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    lid = self.tasks.pop(task)
                    self.run.in_flight.discard(lid)
                    outcome = task.result()  # a budget stop or a crash in a lemma stops the run
                    if outcome == "failed" and launching and self.run.settings.theory_fail_fast:
                        # the theorem can no longer be proved in this run: finish what is in
                        # flight, start nothing new
                        launching = False
                        self.run.note(f"lemma {lid} failed; THEORY_FAIL_FAST: no further lemma started")
        finally:
            await self._stop_all()

    async def _stop_all(self) -> None:
        pending = list(self.tasks)
        for task in pending:
            task.cancel()
        try:
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
        finally:
            self._settle()

    def _settle(self) -> None:
        dag = self.run.state.lemma_dag
        # Nothing runs any more, so nothing is in progress (this also covers a lemma whose
        # task ended with an exception).
        for lid in dag:
            if dag[lid].status == "in_progress":
                dag[lid].status = "pending"
                self.run.emit(lid, "pending", interrupted=True)
        self.tasks.clear()
        self.run.in_flight.clear()
        self.run.save()
