"""``exec_strategy: {mode: async, thread_num: N}``: each epoch's batches are trained by N threads at
once, Hogwild, as AsyncExecutor trains its files (seed 004): each free thread takes the next batch
and runs it with its own Executor on the shared parameters, without locks (on Linux the threads are
processes sharing the parameters' memory unless PE_ASYNC_WORKERS=threads: data/hogwild.py). The
loop then accounts the steps in batch order, so metrics.csv gets one row per epoch (the means over
its batches), and checkpoints and evaluations come at the ends of epochs.

What async mode changes, and what it refuses (``check_async``): one CPU device (the threads are the
parallelism); no ``checkpoint.every_steps`` or ``eval.every_steps`` (steps run out of order inside
an epoch); Ctrl-C takes effect at the end of the epoch (a second one aborts at once).
"""

import time

import numpy as np

from ..data import hogwild
from ..base.errors import PeError
from ..executor import global_scope


def async_threads(cfg):
    """N for ``exec_strategy.mode: async`` (0: the sequential loop)."""
    strategy = cfg.data["exec_strategy"]
    return strategy["thread_num"] if strategy["mode"] == "async" else 0


def check_async(cfg):
    if not async_threads(cfg):
        return
    doc = cfg.doc
    if cfg.data["devices"] != 1 or cfg.data["place"] != "cpu":
        raise doc.error(
            ("exec_strategy", "mode"),
            "async mode trains on one CPU device with several threads",
            "set devices: 1 and place: cpu, or mode: sync",
        )
    for key in (("checkpoint", "every_steps"), ("eval", "every_steps")):
        if cfg.data[key[0]][key[1]]:
            raise doc.error(
                key,
                "async mode runs an epoch's steps out of order, so it saves and evaluates at the ends of epochs",
                f"remove {'.'.join(key)} (use every_epochs)",
            )


def train_epoch(loop, max_steps, stop):
    """The rest of the current epoch on the threads; False when max_steps ended it early."""
    batches = [batch for _, batch in loop.setup.train_data.epoch(loop.epoch, loop.batch)]
    if max_steps is not None:
        batches = batches[: max(0, max_steps - loop.step)]
    start = time.monotonic()
    results = _run(loop, batches, async_threads(loop.cfg))
    if loop.step_of_process == 0:
        loop.out.progress.compiled(loop.compiles.count, loop.compiles.seconds)
    for batch, values in zip(batches, results):
        loop.step_of_process += 1
        loop.step += 1
        n = len(next(iter(batch.values())))
        loop.samples += n
        loop.window_samples += n
        fetched = loop.fetched(values)
        loss = float(np.mean(fetched[loop.loss_name]))
        loop.result.history.append((loop.step, loss))
        if not np.isfinite(loss):
            raise PeError(
                f"step {loop.step}: the loss '{loop.loss_name}' is {loss} (async mode); lower "
                f"optimizer.learning_rate or check the data's transforms"
            )
        for name in loop.fetch_names:
            loop.window[name].append(float(np.mean(fetched[name])))
    now = time.monotonic()
    done = loop.batch + len(batches)
    complete = done >= len(loop.setup.train_data)
    loop.next_position = (loop.epoch + 1, 0) if complete else (loop.epoch, done)
    if batches:
        speed = sum(len(next(iter(b.values()))) for b in batches) / max(now - start, 1e-9)
        loop.last_step = (fetched, speed, now, loop.epoch + 1)
        loop._report(fetched, speed, now)
    stop.settle(stop.requested)  # one process: a Ctrl-C during the epoch stops after it
    return complete


def _run(loop, batches, threads):
    """Each batch's fetched values, the batches trained by ``threads`` Hogwild workers."""
    job = hogwild.Job(
        loop.setup.program,
        range(len(batches)),
        lambda i: [batches[i]],
        loop.exe.place,
        global_scope(),
        loop.fetch_vars,
        collect=True,
    )  # (scope_guard is not seen by new threads)
    try:
        return [values[0] for values in hogwild.run(job, threads)]
    except PeError as e:
        raise PeError(f"async mode: {e}") from None
