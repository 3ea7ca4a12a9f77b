"""What ``pe serve`` answers with: a run's model (a config and a checkpoint, or a run directory) that
takes raw rows as ``pe predict`` does, or an inference model directory that takes its feeds as ``pe
infer`` does. Each is loaded once; a request is read and checked alone (``prepare``: a bad one is
refused before it reaches a batch), requests' feeds are joined into one run (``join``), and the run's
outputs are split back per request (``split``) and answered (``answer``), with pe predict's and pe
infer's own functions at every step (run/predict.py, run/infer.py)."""

import os

import numpy as np

from ..base.errors import PeError
from ..data.ragged import Ragged
from ..data.tables import records_table
from .infer import SavedModel, open_model, raw_feeds
from .inference import load_inference
from .predict import prediction_result, prediction_rows, prepared_inputs
from .run_record import config_record
from .rundir import read_state, resolve_checkpoint

ROWS = "request"  # the name a request's rows go by in messages ("request:2: the field ...", row 2)


class BadRequest(Exception):
    """A request pe cannot answer (HTTP 400): ``message`` is one line naming the problem."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


def is_model_dir(target, model_filename=None, params_filename=None):
    """Whether ``target`` is an inference model (a directory without a run's records, or Paddle 2.x's
    PREFIX of PREFIX.pdmodel) rather than a run directory or a run config."""
    if model_filename or params_filename:
        return True
    if not os.path.isdir(target):
        return not os.path.exists(target) and os.path.isfile(target + ".pdmodel")
    names = set(os.listdir(target))
    return "ckpt" not in names and "config.yaml" not in names


def run_config(target, checkpoint, overrides, load_config):
    """(run config, checkpoint) of ``pe serve TARGET``: a run config with ``-c``, or a run directory
    (or checkpoint) whose config record in force is the config (run/run_record.py)."""
    if not os.path.exists(target):
        raise PeError(
            f"pe serve {target}: no such file or directory; give a run directory, a run config with -c, "
            f"or an inference model directory (or Paddle 2.x's PREFIX of PREFIX.pdmodel)"
        )
    if os.path.isfile(target):
        if checkpoint is None:
            raise PeError(f"pe serve {target}: a run config needs -c CHECKPOINT (a run directory or ckpt/...)")
        return load_config(target, overrides), checkpoint
    ckpt, run_dir = resolve_checkpoint(checkpoint or target, prefer_best=True)
    record = config_record(run_dir, read_state(ckpt).get("step") or 0)
    if record is None:
        raise PeError(f"pe serve: {run_dir} holds no config.yaml (the run's record); give the run's config and -c")
    return load_config(record, overrides), ckpt


def _rows(body):
    rows = body.get("rows")
    if not isinstance(rows, list) or not rows:
        raise BadRequest('the body needs "rows": a non-empty list of objects, {"column": value, ...}')
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise BadRequest(f"rows[{i}] is a JSON {type(row).__name__}, not an object")
    return records_table(ROWS, rows)


def _length(columns):
    return len(next(iter(columns.values())))


def join(parts):
    """One feed dict of several requests' (arrays stacked, sequences joined)."""
    if len(parts) == 1:
        return parts[0]
    out = {}
    for name in parts[0]:
        columns = [p[name] for p in parts]
        if isinstance(columns[0], Ragged):
            levels = [np.concatenate([c.outer[k] for c in columns]) for k in range(len(columns[0].outer))]
            values = np.concatenate([c.values for c in columns])
            out[name] = Ragged(values, np.concatenate([c.lengths for c in columns]), name, levels)
        else:
            out[name] = np.concatenate(columns)
    return out


class RowModel:
    """A run's model answering rows (pe predict's path)."""

    kind = "rows"

    def __init__(self, cfg, checkpoint, output=None):
        self.cfg = cfg
        self.inference = load_inference(cfg, checkpoint, output, "serve")
        prep = self.inference.preprocessing
        images = [f for f, kind in (prep.kinds() if prep else {}).items() if kind == "image"]
        if images:
            raise PeError(
                f"pe serve: feed '{images[0]}' reads image files (data.preprocessing kind image), and pe serve "
                f"reads no files a request names; use pe predict --data, or export the model (pe export --onnx)"
            )
        self.target = self.inference.label
        run_dir = os.path.dirname(os.path.dirname(self.inference.checkpoint))
        self.info = {"run": run_dir, "checkpoint": self.inference.checkpoint, "step": self.inference.step}

    def prepare(self, body):
        """(feeds, rows, notes) of one request's body."""
        try:
            columns, _, notes = prepared_inputs(self.cfg, self.inference, _rows(body))
        except PeError as e:
            raise BadRequest(str(e).splitlines()[0]) from None
        return columns, _length(columns), notes

    def run(self, feeds):
        """The output's values (a model with several outputs: every head's, a list, as pe predict's)."""
        inf = self.inference
        return inf.run_heads(feeds) if inf.heads else inf.run(feeds)

    def split(self, values, sizes):
        """Each request's rows of the output (of every head), or None where an output is not one row
        per sample."""
        several = self.inference.heads is not None
        arrays = values if several else [values]
        if any(len(a) != sum(sizes) for a in arrays):
            return None
        parts = [np.split(a, np.cumsum(sizes)[:-1]) for a in arrays]
        return [list(part) for part in zip(*parts)] if several else parts[0]

    def answer(self, values, notes):
        """pe predict's rows: each head's columns in turn, as its CSV."""
        inf = self.inference
        rows = None
        for head, part in zip(inf.heads, values) if inf.heads else [(inf, values)]:
            result, names = prediction_result(head, part)
            got = prediction_rows(result, names, head.label if inf.heads else self.target)
            rows = got if rows is None else [{**row, **more} for row, more in zip(rows, got)]
        body = {"predictions": rows, "model": self.info}
        return {**body, "notes": notes} if notes else body

    def warm_feeds(self, n):
        """n samples of zeros for every feed (planning and compiling before the first request)."""
        return {name: _zeros(self.cfg.model.feeds[name], n) for name in self.inference.inputs}

    def metadata(self):
        inf, prep = self.inference, self.inference.preprocessing
        kinds, columns = (prep.kinds(), prep.columns()) if prep else ({}, {})
        inputs = [
            {
                "feed": name,
                "column": columns.get(name, name),
                "kind": kinds.get(name, "array"),
                "dtype": str(self.cfg.model.feeds[name].dtype),
                "shape": list(self.cfg.model.feeds[name].full_shape),
                "sequence": bool(self.cfg.model.feeds[name].lod_level),
            }
            for name in inf.inputs
        ]
        outputs = []
        for head in inf.heads or [inf]:
            output = {"layer": head.output, "task": head.kind, "target": head.label if inf.heads else self.target}
            if head.kind == "classification" and prep and head.labels:
                output["classes"] = prep.class_names(head.labels[0])
            outputs.append(output)
        return {"model": self.info, "inputs": inputs, "outputs": outputs}


def _zeros(feed, n):
    shape = [n] + [max(int(d), 1) for d in list(feed.full_shape)[1:]]
    values = np.zeros(shape, dtype=str(feed.dtype))
    if feed.lod_level:
        return Ragged(values, np.ones(n, dtype=np.int64), "warm")
    return values


class DirModel:
    """An inference model directory answering its feeds (pe infer's path)."""

    kind = "inputs"

    def __init__(self, model_dir, model_filename=None, params_filename=None):
        self.model: SavedModel = open_model(model_dir, model_filename, params_filename)
        self.info = {"dir": self.model.model_dir}
        self.block = self.model.program.global_block()

    def prepare(self, body):
        try:
            if self.model.preprocessing is not None and "rows" in body:  # pe export's dir: raw rows
                raw = raw_feeds(self.model.model_dir, _rows(body), self.model.feeds)
            else:
                raw = self._inputs(body.get("inputs"))
            columns = self.model.inputs(raw, "the request")
        except PeError as e:
            raise BadRequest(str(e).splitlines()[0]) from None
        n = _length(columns)
        if not n:
            raise BadRequest("the inputs hold no samples")
        return columns, n, []

    def _inputs(self, inputs):
        if not isinstance(inputs, dict):
            raise BadRequest('the body needs "inputs": {"feed_name": nested list, ...}')
        missing = [f for f in self.model.feeds if f not in inputs]
        if missing:
            raise BadRequest(f"inputs lack the feed '{missing[0]}' (the model's feeds: {', '.join(self.model.feeds)})")
        out = {}
        for name in self.model.feeds:
            value = inputs[name]
            try:
                if isinstance(value, dict):  # a sequence feed: {"values": ..., "lengths": ...}
                    out[name] = Ragged(np.asarray(value["values"]), np.asarray(value["lengths"], dtype=np.int64), name)
                else:
                    out[name] = np.asarray(value)
            except (KeyError, TypeError, ValueError) as e:
                raise BadRequest(f"input '{name}' is not an array ({str(e).splitlines()[0][:120]})") from None
            if isinstance(out[name], np.ndarray) and (out[name].dtype == object or out[name].ndim == 0):
                raise BadRequest(f"input '{name}' is not a nested list of numbers of one shape")
        return out

    def run(self, feeds):
        return self.model.run(feeds)

    def split(self, tensors, sizes):
        if any(t.recursive_sequence_lengths() for t in tensors):
            return None if len(sizes) > 1 else [tensors]
        arrays = [np.asarray(t) for t in tensors]
        if any(len(a) != sum(sizes) for a in arrays):
            return None
        cuts = np.cumsum(sizes)[:-1]
        return [list(part) for part in zip(*[np.split(a, cuts) for a in arrays])]

    def answer(self, tensors, notes):
        if isinstance(tensors[0], np.ndarray):
            tensors = [_Plain(a) for a in tensors]
        values = self.model.outputs([tensors])
        return {"outputs": {k: v.tolist() for k, v in values.items()}, "model": self.info}

    def warm_feeds(self, n):
        out = {}
        for name in self.model.feeds:
            var = self.block.var(name)
            shape = [n] + [max(int(d), 1) for d in list(var.shape or (1,))[1:]]
            values = np.zeros(shape, dtype=var.dtype)
            out[name] = Ragged(values, np.ones(n, dtype=np.int64), name) if var.lod_level else values
        return out

    def metadata(self):
        def entry(name):
            var = self.block.var(name)
            return {"name": name, "dtype": str(np.dtype(var.dtype)), "shape": list(var.shape or ()),
                    "lod_level": int(var.lod_level or 0)}  # fmt: skip

        outputs = [dict(entry(v.name), name=n) for v, n in zip(self.model.fetches, self.model.names)]
        return {"model": self.info, "inputs": [entry(f) for f in self.model.feeds], "outputs": outputs}


class _Plain:
    """A split part of a fetch target's array, as SavedModel.outputs reads a LoDTensor."""

    def __init__(self, array):
        self.array = array

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)

    def recursive_sequence_lengths(self):
        return []
