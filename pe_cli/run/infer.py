"""``pe infer``: an inference model directory, saved by PaddlePaddle (Fluid's ``__model__`` or Paddle
2.x's ``.pdmodel``/``.pdiparams``) or by pe, run on a data file, without a config.

The data file gives the model's feeds (.npy or IDX for a single feed, .npz by feed name, .csv; in an
.npz, ``NAME`` with ``NAME_lengths`` beside it is one sequence per sample, for a sequence feed, and with
``NAME_lengths_0``, ``NAME_lengths_1``, ... a LoD of that many levels, outermost first); each
array is cast to its feed's dtype and, where its sample shape differs only in size-1 dims (IDX images
[N, 28, 28] for a [-1, 1, 28, 28] feed), reshaped to it. A model directory that pe export wrote
from a run with data.preprocessing holds its preprocessing.json: it is applied first (tables by
column name, image files, a folder of images), and the output it names as a numeric target's
prediction is un-scaled to that target's units. No other preprocessing is applied: the config's
data.transforms are the user's to apply before. Every fetch target's values for all
samples go to one .npz, named by the target variables (a target Fluid's save_inference_model saved as
``save_infer_model/scale_<i>`` by the variable it scales); a target that is sequences has its lengths
beside it in the same form (``NAME_lengths`` for one LoD level, ``NAME_lengths_0``, ... for more).
"""

import io
import os
from dataclasses import dataclass

import numpy as np

from ..base.errors import PeError
from ..base.limits import refuse_special
from ..executor import Executor, Scope, scope_guard
from ..io import load_inference_model
from ..io.inference import target_names
from ..io.manifest import manifest_problem, read_manifest
from ..base.places import CPUPlace
from ..data.preprocessing import lengths_feeds
from ..data.unscaling import unscaled
from ..data.ragged import Ragged, level_arrays, plain_for_sequences
from ..data.readers import DataError
from ..data.tables import Table
from ..data.missing import note
from .data_notes import input_notes
from .predict import read_feeds
from .preprocessing import saved_preprocessing
from .rundir import atomic_write


def _fit(name, column, var, data_path):
    """A column cast (and reshaped) to its feed; a Ragged keeps its sequences (its steps are fitted)."""
    if isinstance(column, Ragged):
        return column.with_values(_fit_array(name, column.values, var))
    if var.lod_level:
        error = plain_for_sequences(name, data_path)
        raise PeError(f"{error.message} ({error.hint})")
    return _fit_array(name, column, var)


def _fit_array(name, array, var):
    array = np.asarray(array).astype(var.dtype, copy=False)
    sample = [int(d) for d in (var.shape or ())[1:]]
    if list(array.shape[1:]) == sample or any(d < 0 for d in sample):
        return array
    if [d for d in array.shape[1:] if d != 1] == [d for d in sample if d != 1]:
        return array.reshape([len(array)] + sample)
    raise PeError(f"feed '{name}' takes samples of shape {sample}; the data's are {list(array.shape[1:])}")


def raw_feeds(model_dir, data_path, feeds, tell=False):
    """The feeds from the data file, through the preprocessing.json beside the model (pe export
    --inference-dir writes it) when there is one; ``tell``: the values it fills (and the categories
    it never saw) counted per column on stderr, as pe predict does."""
    prep = saved_preprocessing(None, model_dir)
    if prep is None:
        return read_feeds(data_path, feeds)
    lengths = lengths_feeds(prep.feeds)
    raw = read_feeds(data_path, [f for f in feeds if f not in lengths], prep.columns(), prep.kinds(), prep.missing())
    label = data_path.path if isinstance(data_path, Table) else data_path
    for line in input_notes(prep, raw) if tell else ():
        note(f"{label}: {line}")
    try:
        raw.update(prep.apply(raw, label))
    except DataError as e:
        raise PeError(f"{label}: {e.message}") from None
    return raw


def saved_model_files(model_dir, model_filename=None, params_filename=None):
    """(directory, model file name, parameters file name) of what ``pe infer`` is given: a model directory
    as it is, or, as ``paddle.jit.load`` and ``paddle.static.load_inference_model`` take it, a path prefix
    of Paddle 2.x's ``PREFIX.pdmodel`` (and ``PREFIX.pdiparams``, where saved) that is no directory."""
    if model_filename or params_filename or os.path.isdir(model_dir) or not os.path.isfile(model_dir + ".pdmodel"):
        return model_dir, model_filename, params_filename
    folder, base = os.path.split(model_dir)
    params = base + ".pdiparams" if os.path.isfile(model_dir + ".pdiparams") else None
    return folder or ".", base + ".pdmodel", params


@dataclass
class SavedModel:
    """An inference model directory loaded once: its program in its own scope, run batch by batch."""

    program: object
    feeds: list  # feed target names
    fetches: list  # fetch target variables
    names: list  # their names (target_names)
    exe: object
    scope: object
    model_dir: str
    preprocessing: object = None  # the preprocessing.json pe export wrote beside it, or None

    def inputs(self, raw, data_path):
        """{feed: array or Ragged} of the raw columns (read_feeds') cast and reshaped to the feeds."""
        block = self.program.global_block()
        return {n: _fit(n, a, block.var(n), data_path) for n, a in raw.items()}

    def run(self, columns):
        """The fetch targets' LoDTensors for one batch."""
        with scope_guard(self.scope):
            return self.exe.run(self.program, feed=columns, fetch_list=self.fetches, return_numpy=False)

    def outputs(self, parts):
        """{name: array} of the batches' results ``parts``: each fetch target concatenated, a numeric
        target un-scaled to its units, a sequence target's lengths beside it (NAME_lengths)."""
        values = {}
        units = self.preprocessing.target_unscaling() if self.preprocessing is not None else {}
        for i, name in enumerate(self.names):
            values[name] = np.concatenate([np.asarray(p[i]) for p in parts])
            if name in units:
                values[name] = unscaled(units[name], values[name])  # a numeric target in its own units
            lods = [p[i].recursive_sequence_lengths() for p in parts]
            if lods[0] and all(len(lod) == len(lods[0]) for lod in lods):  # sequences out: lengths beside them
                levels = [np.concatenate([lod[k] for lod in lods]) for k in range(len(lods[0]))]
                values.update(level_arrays(name, levels))
        return values


def open_model(model_dir, model_filename=None, params_filename=None):
    """The SavedModel of ``model_dir`` (a directory, or Paddle 2.x's path prefix), checked: a model
    directory pe export wrote must match its manifest, and the program must have feed targets."""
    model_dir, model_filename, params_filename = saved_model_files(model_dir, model_filename, params_filename)
    refuse_special(model_dir, "model directory")
    if not os.path.isdir(model_dir):
        raise PeError(f"model directory {model_dir} does not exist")
    problem = manifest_problem(model_dir) if read_manifest(model_dir) is not None else None  # pe export's
    if problem:
        raise PeError(
            f"model directory {model_dir} is damaged ({problem}); export it again (pe export --inference-dir)"
        )
    exe, scope = Executor(CPUPlace()), Scope()
    with scope_guard(scope):
        program, feeds, fetches = load_inference_model(model_dir, exe, model_filename, params_filename)
    if not feeds:
        raise PeError(
            f"model directory {model_dir}: its program has no feed targets (no feed op), so no data "
            f"can go in; save the model with its inputs (save_inference_model's feeded_var_names)"
        )
    names = target_names(program, fetches)
    return SavedModel(program, feeds, fetches, names, exe, scope, model_dir, saved_preprocessing(None, model_dir))


def infer(model_dir, data_path, out, model_filename=None, params_filename=None, batch_size=256):
    """Runs the model on the data; returns {"out", "samples", "feeds", "fetches"}."""
    if not out.endswith(".npz"):
        raise PeError(f"-o {out}: the values are written as .npz (one array per fetch target)")
    model = open_model(model_dir, model_filename, params_filename)
    columns = model.inputs(raw_feeds(model.model_dir, data_path, model.feeds, tell=True), data_path)
    n = len(next(iter(columns.values())))
    if not n:
        raise PeError(f"{data_path} holds no samples")
    parts = [model.run({k: v[s : s + batch_size] for k, v in columns.items()}) for s in range(0, n, batch_size)]
    values = model.outputs(parts)
    buf = io.BytesIO()
    np.savez(buf, **values)
    atomic_write(out, buf.getvalue())
    return {"out": out, "samples": n, "feeds": model.feeds, "fetches": model.names}
