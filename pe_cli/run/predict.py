"""``pe predict``: a checkpoint's model run on data without labels.

The prediction is a layer of the model file (``--output``; by default the last layer that needs no
label feed: the logits of a classifier, the prediction of a regression; run/inference.py).
The data file gives the feeds that layer needs (.npy, .npz, .csv, or IDX images; a sequence feed as
``NAME`` + ``NAME_lengths`` in an .npz, as training reads it), through the run config's transforms. A classifier (its label feed is an integer) gets each sample's class and the
class probabilities (a softmax of the layer, unless its rows already are probabilities); anything
else gets the layer's values. Written as .npz (arrays ``class``, ``prob`` / ``value``) or .csv.
"""
import csv
import io
import os

import numpy as np

from ..data.idx import read_idx
from ..data.ragged import Ragged, is_lengths, npz_column, plain_for_sequences
from ..data.readers import DataError, read_csv, read_npy, read_npz
from ..data.transforms import apply_transforms, conform
from ..base.errors import PeError
from .inference import load_inference
from .progress import Progress
from .rundir import atomic_write


def read_feeds(path, feeds):
    """{feed: array} from a data file for the ``feeds`` the prediction needs. In an .npz, an array
    ``NAME`` with ``NAME_lengths`` beside it is ragged (a Ragged: one sequence per sample), as in
    training's npz sources (data/ragged.py)."""
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
    names = [k for k in arrays if not is_lengths(arrays, k)]
    try:
        if set(feeds) <= set(names):
            return {f: npz_column(arrays, f) for f in feeds}
        if len(feeds) == 1 and len(names) == 1:
            return {next(iter(feeds)): npz_column(arrays, names[0], next(iter(feeds)))}
    except DataError as e:
        raise PeError(f"{path}: {e.message}") from None
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
    inference = load_inference(cfg, checkpoint, output)       # the pruned test program (run/inference.py)
    columns = {name: _prepared(cfg, name, column, data_path)
               for name, column in read_feeds(data_path, inference.inputs).items()}
    values = _run(cfg, inference, columns, quiet)
    classifier = inference.kind == "classification"
    result = {"class": _probabilities(values).argmax(axis=1), "prob": _probabilities(values)} if classifier \
        else {"value": values}
    out = out or os.path.join(os.path.dirname(os.path.dirname(inference.checkpoint)),
                              f"predictions-step-{inference.step}.npz")
    _write(out, result)
    return {"out": out, "samples": len(values), "output": inference.output, "classifier": classifier}


def _prepared(cfg, name, column, data_path):
    """A column through the config's transforms, fitted to its feed; a Ragged keeps its sequences
    (the transforms apply to the steps, as in training)."""
    feed = cfg.model.feeds[name]
    ragged = isinstance(column, Ragged)
    try:
        if feed.lod_level and not ragged:
            raise plain_for_sequences(name, data_path)
        array = apply_transforms(column.values if ragged else column, cfg.data["data"]["transforms"].get(name, []))
        array = conform(array, name, feed.full_shape, feed.dtype)
    except DataError as e:
        message = e.message if e.message.startswith(data_path) else f"{data_path}: {e.message}"
        raise PeError(message + (f" ({e.hint})" if e.hint else "")) from None
    return column.with_values(array) if ragged else array


def _run(cfg, inference, columns, quiet):
    n = len(next(iter(columns.values())))
    size = cfg.data["data"]["eval_batch_size"] or cfg.data["data"]["batch_size"]
    progress = Progress((n + size - 1) // size, quiet)
    parts = []
    for i, start in enumerate(range(0, n, size)):
        parts.append(inference.run({k: v[start:start + size] for k, v in columns.items()}))
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
