"""``pe eval``: a checkpoint's parameters in the test program, each fetch averaged over data.eval;
and run_eval, the averaging the training loop's evaluations use too."""

import io
import json
import os

import numpy as np

from ..executor import Executor, Scope, scope_guard
from ..io import load_persistables
from .build import build_programs, load_data
from .data_notes import tell_fills
from .placement import make_place
from .predmetrics import Predictions
from .preprocessing import fill_data_sizes, saved_preprocessing
from .rundir import atomic_write, read_state
from .run_record import run_checkpoint
from .split import Rows, part_name


def run_eval(exe, program, batcher, fetch_names, fetch_vars, keep_raw=False, predictions=None):
    """Each fetch averaged over ``batcher`` (weighted by batch size); with ``keep_raw`` also the
    fetched values of every batch, concatenated; ``predictions`` (predmetrics.Predictions) gathers its
    heads' values in the same pass. Returns (means, raw, samples)."""
    sums = {n: 0.0 for n in fetch_names}
    raw = {n: [] for n in fetch_names}
    samples = 0
    for _, batch in batcher.epoch(0):
        n = len(next(iter(batch.values())))
        heads = predictions.names if predictions is not None else []
        values = exe.run(program, feed=batch, fetch_list=list(fetch_vars) + heads)
        if heads:
            predictions.add(batch, values[len(fetch_vars) :])
        for name, value in zip(fetch_names, values):
            sums[name] += float(np.mean(value)) * n
            if keep_raw:
                raw[name].append(np.asarray(value))
        samples += n
    means = {n: sums[n] / samples for n in fetch_names}
    if keep_raw:
        raw = {n: _concat(v) for n, v in raw.items()}
    return means, raw, samples


def _concat(arrays):
    if all(a.ndim >= 1 for a in arrays) and len({a.shape[1:] for a in arrays}) == 1:
        return np.concatenate(arrays)
    return np.stack(arrays)


def evaluate(cfg, checkpoint, out=None, save_fetches=False, part="eval"):
    """Returns {"checkpoint", "step", "samples", "metrics", "out", "fetches", "part"} and writes
    ``out`` (default: eval-step-N.json, or test-step-N.json for data.split's test ``part``, in the
    checkpoint's run directory, never the run's own eval.json)."""
    ckpt, run_dir = run_checkpoint(cfg, checkpoint, "eval")  # best where the run kept one
    preprocessing = saved_preprocessing(cfg, run_dir)
    fill_data_sizes(cfg, preprocessing)  # before the data is conformed to the feeds: a one-hot's width
    rows = Rows(cfg, run_dir)  # data.split: the rows the run recorded
    columns = rows.columns(part)
    eval_data = load_data(cfg, part, preprocessing, columns)
    tell_fills(preprocessing, columns, part_name(cfg, part))  # the values preprocessing filled
    place = make_place(cfg)
    programs = build_programs(cfg.model, cfg, with_optimizer=False)
    state = read_state(ckpt)
    names = cfg.eval_fetches
    if not names:
        raise cfg.doc.error(("eval", "fetches"), "nothing to evaluate", "list layers under eval.fetches")
    fetch_vars = [v.name for v in programs.fetch_vars(names)]
    exe = Executor(place)
    with scope_guard(Scope()):
        exe.run(programs.startup)
        load_persistables(exe, ckpt, programs.test)
        predictions = Predictions(cfg, programs, preprocessing)
        means, raw, samples = run_eval(
            exe, programs.test, eval_data, names, fetch_vars, keep_raw=save_fetches, predictions=predictions
        )
        prediction = predictions.report()
    out = out or os.path.join(run_dir, f"{part}-step-{state.get('step')}.json")
    result = {
        "checkpoint": ckpt,
        "step": state.get("step"),
        "part": part_name(cfg, part),
        "samples": samples,
        "metrics": means,
        "out": out,
    }
    if prediction:
        result["prediction"] = prediction
    if save_fetches:
        fetches = os.path.splitext(out)[0] + "-fetches.npz"
        buf = io.BytesIO()
        np.savez(buf, **raw)
        atomic_write(fetches, buf.getvalue())
        result["fetches"] = fetches
    atomic_write(out, json.dumps({k: v for k, v in result.items() if k != "out"}, indent=1) + "\n")
    return result
