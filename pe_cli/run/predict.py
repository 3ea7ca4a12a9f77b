"""``pe predict``: a checkpoint's model run on data without labels.

The prediction is a layer of the model file (``--output``; by default the layer nearest the loss
that needs fewer feeds than the loss: the logits of a classifier, the prediction of a regression).
The data file gives the feeds that layer needs (.npy, .npz, .csv, or IDX images), through the run
config's transforms. A classifier (its label feed is an integer) gets each sample's class and the
class probabilities (a softmax of the layer, unless its rows already are probabilities); anything
else gets the layer's values. Written as .npz (arrays ``class``, ``prob`` / ``value``) or .csv.
"""
import csv
import io
import os

import numpy as np

from ..data.idx import read_idx
from ..data.readers import DataError, read_csv, read_npy, read_npz
from ..data.transforms import apply_transforms, conform
from ..errors import PeError
from ..executor import Executor, Scope, scope_guard
from ..io import load_persistables
from .build import build_programs
from .placement import make_place
from .progress import Progress
from .rundir import atomic_write, read_state, resolve_checkpoint


def _feeds_of(program, name):
    """The fed (data) variables ``name`` depends on in ``program``."""
    block, producer = program.global_block(), {}
    for op in block.ops:
        for out in op.output_arg_names:
            producer[out] = op
    seen, todo, feeds = set(), [name], set()
    while todo:
        var = todo.pop()
        if var in seen:
            continue
        seen.add(var)
        v = block.vars.get(var)
        if v is not None and v.is_data:
            feeds.add(var)
        if var in producer:
            todo.extend(producer[var].input_arg_names)
    return feeds


def _default_output(spec, model, program):
    """The layer nearest the loss whose feeds are fewer than the loss's (it does not read the label)."""
    if spec.loss is None:
        raise PeError("the model has no loss to find its prediction from; give --output LAYER")
    loss_feeds = _feeds_of(program, model.var(spec.loss).name)
    for layer in reversed(spec.layers):
        var = model.vars[layer.name]
        if hasattr(var, "name") and _feeds_of(program, var.name) < loss_feeds:
            return layer.name
    raise PeError("no layer computes a prediction without the label; give --output LAYER")


def _read(path, feeds):
    """{feed: array} from a data file for the ``feeds`` the prediction needs."""
    if not os.path.isfile(path):
        raise PeError(f"data file {path} does not exist")
    try:
        if path.endswith(".npy"):
            arrays = {"": read_npy(path)}
        elif path.endswith(".npz"):
            arrays = read_npz(path)
        elif path.endswith(".csv"):
            arrays = {"": read_csv(path)[1]}
        else:
            arrays = {"": read_idx(path)}
    except DataError as e:
        raise PeError(e.message) from None
    if set(feeds) <= set(arrays):
        return {f: arrays[f] for f in feeds}
    if len(feeds) == 1 and len(arrays) == 1:
        return {next(iter(feeds)): next(iter(arrays.values()))}
    raise PeError(f"{path} must hold the feeds {sorted(feeds)} (an .npz with those names, or one array "
                  f"for a single feed); it holds {sorted(k for k in arrays if k) or 'one array'}")


def _probabilities(values):
    if values.ndim == 2 and np.all(values >= 0) and np.allclose(values.sum(axis=1), 1, atol=1e-4):
        return values
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def predict(cfg, checkpoint, data_path, out=None, output=None, quiet=False):
    """Runs the prediction; returns {"out", "samples", "output", "classifier"}."""
    if out is not None and not out.endswith((".npz", ".csv")):
        raise PeError(f"-o {out}: predictions are written as .npz or .csv")
    programs = build_programs(cfg.model, cfg, with_optimizer=False)
    model, test = programs.model, programs.test
    output = output or _default_output(cfg.model, model, test)
    if output not in model.vars:
        raise PeError(f"--output {output}: no such layer in {cfg.model.name}")
    target = model.var(output)
    feeds = _feeds_of(test, target.name)
    columns = {}
    for name, array in _read(data_path, feeds).items():
        try:
            array = apply_transforms(array, cfg.data["data"]["transforms"].get(name, []))
            columns[name] = conform(array, name, cfg.model.feeds[name].full_shape, cfg.model.feeds[name].dtype)
        except DataError as e:
            raise PeError(f"{data_path}: {e.message}") from None
    values = _run(cfg, checkpoint, programs, target, columns, quiet)
    labels = [f for f in cfg.model.feeds if f not in feeds]
    classifier = bool(labels) and np.issubdtype(np.dtype(cfg.model.feeds[labels[0]].dtype), np.integer)
    result = {"class": _probabilities(values).argmax(axis=1), "prob": _probabilities(values)} if classifier \
        else {"value": values}
    ckpt, run_dir = resolve_checkpoint(checkpoint)
    out = out or os.path.join(run_dir, f"predictions-step-{read_state(ckpt).get('step')}.npz")
    _write(out, result)
    return {"out": out, "samples": len(values), "output": output, "classifier": classifier}


def _run(cfg, checkpoint, programs, target, columns, quiet):
    ckpt, _ = resolve_checkpoint(checkpoint)
    n = len(next(iter(columns.values())))
    size = cfg.data["data"]["eval_batch_size"] or cfg.data["data"]["batch_size"]
    progress = Progress((n + size - 1) // size, quiet)
    exe, parts = Executor(make_place(cfg)), []
    inference = programs.test._prune([target])      # without the loss and metrics: no label needed
    with scope_guard(Scope()):
        exe.run(programs.startup)
        load_persistables(exe, ckpt, programs.test)
        for i, start in enumerate(range(0, n, size)):
            batch = {k: v[start:start + size] for k, v in columns.items()}
            parts.append(np.asarray(exe.run(inference, feed=batch, fetch_list=[target.name])[0]))
            progress.update(i + 1, 1, {}, None)
    progress.end()
    return np.concatenate(parts)


def _write(out, result):
    if out.endswith(".csv"):
        buf = io.StringIO()
        writer = csv.writer(buf)
        if "class" in result:
            k = result["prob"].shape[1]
            writer.writerow(["class"] + [f"prob_{j}" for j in range(k)])
            writer.writerows([c, *(f"{p:.6g}" for p in row)] for c, row in zip(result["class"], result["prob"]))
        else:
            flat = result["value"].reshape(len(result["value"]), -1)
            writer.writerow([f"value_{j}" for j in range(flat.shape[1])])
            writer.writerows([f"{v:.6g}" for v in row] for row in flat)
        atomic_write(out, buf.getvalue())
        return
    buf = io.BytesIO()
    np.savez(buf, **result)
    atomic_write(out, buf.getvalue())
