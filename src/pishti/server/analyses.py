"""The expert's analysis of finished matches, computed on demand in worker processes.

:class:`Analyses` keeps a bounded first-come queue of requested analyses, one
per finished match (``(table id, match number)``).  Each one is cut into its
decks (:func:`pishti.analysis.analyse_deck`), which run in a pool of at most
``workers`` processes, never in the event loop.  A request is refused when
``queue`` analyses are already waiting or running.  One analysis runs at a
time (its decks shared among the workers), the others wait their turn in the
order asked, each knowing how many are ahead of it.  Once every deck is done
the analysis (:func:`pishti.analysis.analysis_json`) is stored in the
database (:meth:`pishti.server.store.Store.save_analysis`) and given from
there afterwards.  Only a finished match has a record (R7.7), so only a
finished match of a table is analysed.

A record file sent by a person (the replay page's file, ``POST /api/analysis``)
is analysed the same way, in the same queue, with the same budget; its
analysis is kept in memory only (the last :data:`KEPT`), never in the
database, and the record itself is not kept once analysed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Any

from pishti.analysis import analyse_deck, analysis_json
from pishti.bots.expert import SAMPLES as EXPERT_SAMPLES
from pishti.records import loads_record
from pishti.records.record import MatchRecord
from pishti.server.store import Store

log = logging.getLogger(__name__)

Key = tuple[str, int]
"""``(table id, match number from 1)``; a record file's is ``("record:" + its
SHA-256, 0)`` (:func:`record_key`)."""
KEPT = 32
"""Analyses of record files kept in memory, the latest."""


def record_key(digest: str) -> Key:
    """The key of the analysis of a record file whose stored form has SHA-256 ``digest``."""
    return (f"record:{digest}", 0)


class AnalysisBusy(Exception):
    """Too many analyses are waiting: try again later."""


@dataclass(slots=True)
class _Job:
    """One requested analysis: its record, and its decks as they come back."""

    record: MatchRecord
    keep: bool = False
    """Kept in memory (a record file's), not stored in the database."""
    decks_done: int = 0
    started: bool = False
    failed: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class Analyses:
    """Analyses of finished matches in a bounded pool of worker processes (module doc).

    Attributes:
        workers: processes at most.  queue: analyses waiting or running at most.
        samples, expert_samples, seed: the analysis's budget per play, the
            expert's, and the seed (docs/bots.md).
    """

    def __init__(
        self,
        store: Store,
        *,
        workers: int,
        queue: int,
        samples: int,
        expert_samples: int = EXPERT_SAMPLES,
        seed: int = 0,
    ) -> None:
        """Nothing starts until the first request.

        Raises:
            ValueError: fewer than one worker, a queue shorter than one, or fewer
                than two samples.
        """
        if workers < 1 or queue < 1 or samples < 2:
            raise ValueError("analyses need a worker, a queue and two samples at least")
        self.store = store
        self.workers = workers
        self.queue = queue
        self.samples = samples
        self.expert_samples = expert_samples
        self.seed = seed
        self._pool: ProcessPoolExecutor | None = None
        self._jobs: dict[Key, _Job] = {}
        self._kept: OrderedDict[Key, str] = OrderedDict()
        self._turn = asyncio.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # Workers are started afresh (spawn), not forked from the serving process
            # with its threads and sockets.
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        return self._pool

    def status(self, key: Key) -> dict[str, Any] | None:
        """The state of a requested analysis not yet stored: ``{"status": "queued",
        "position": n}`` (n analyses ahead of it), ``{"status": "running", "decks_done",
        "decks"}``, ``{"status": "failed", "message"}``, or None when not requested."""
        job = self._jobs.get(key)
        if job is None:
            return None
        if job.failed is not None:
            return {"status": "failed", "message": job.failed}
        if job.started:
            return {
                "status": "running",
                "decks_done": job.decks_done,
                "decks": len(job.record.decks),
            }
        ahead = 0
        for other_key, other in self._jobs.items():
            if other_key == key:
                break
            if other.failed is None:
                ahead += 1
        return {"status": "queued", "position": ahead}

    def kept(self, key: Key) -> str | None:
        """The analysis JSON of a record file (``keep``), while it is kept; else None."""
        return self._kept.get(key)

    def request(self, key: Key, record_text: str, *, keep: bool = False) -> dict[str, Any]:
        """Queue the analysis of the finished match ``key`` whose R10 record is
        ``record_text`` (nothing new when it is already queued); return its status.
        ``keep``: keep the result in memory (:meth:`kept`) instead of the database.

        Raises:
            AnalysisBusy: ``queue`` analyses are already waiting or running.
            RecordError: the stored record does not parse.
        """
        job = self._jobs.get(key)
        if job is not None and job.failed is None:
            status = self.status(key)
            assert status is not None
            return status
        active = sum(1 for j in self._jobs.values() if j.failed is None)
        if active >= self.queue:
            raise AnalysisBusy(f"{active} analyses are waiting: try again in a minute")
        job = _Job(loads_record(record_text), keep)
        self._jobs[key] = job
        job.task = asyncio.get_running_loop().create_task(self._run(key, job))
        status = self.status(key)
        assert status is not None
        return status

    async def _run(self, key: Key, job: _Job) -> None:
        loop = asyncio.get_running_loop()
        pool = self._executor()
        record = job.record
        try:
            async with self._turn:  # one analysis at a time, its decks in every worker
                job.started = True
                futures = [
                    loop.run_in_executor(
                        pool, analyse_deck, record, d, self.samples, self.seed, self.expert_samples
                    )
                    for d in range(len(record.decks))
                ]
                decks: list[list[dict[str, Any]]] = []
                for future in futures:
                    decks.append(await future)
                    job.decks_done += 1
            text = json.dumps(
                analysis_json(record, decks, self.samples, self.seed, self.expert_samples)
            )
            if job.keep:
                self._kept[key] = text
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
            else:
                await self.store.save_analysis(key[0], key[1], text)
            del self._jobs[key]
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a worker that died, a database error: say so, keep serving
            log.exception("the analysis of match %s of table %s failed", key[1], key[0])
            job.failed = f"the analysis failed: {type(exc).__name__}"

    async def close(self) -> None:
        """Stop at once: cancel the analyses waiting or running and end the worker
        processes without waiting for the decks they are computing (a server being
        stopped once waited about 25 s for one).  What is stored stays stored; an
        analysis cut short is not, and can be asked for again."""
        for job in self._jobs.values():
            if job.task is not None:
                job.task.cancel()
        self._jobs.clear()
        if self._pool is not None:
            pool = self._pool
            self._pool = None
            # The pool's own processes (Python 3.14 has terminate_workers() for this).
            workers: list[BaseProcess] = list((pool._processes or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                if worker.is_alive():
                    worker.terminate()
            await asyncio.to_thread(_reap, workers)


def _reap(workers: list[BaseProcess]) -> None:
    """Wait for terminated worker processes to end (killed after a second)."""
    for worker in workers:
        worker.join(1.0)
        if worker.is_alive():
            worker.kill()
            worker.join(1.0)
