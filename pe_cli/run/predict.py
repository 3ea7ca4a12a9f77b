"""``pe predict``: a checkpoint's model run on data without labels.

The prediction is a layer of the model file (``--output``; by default the last layer that needs no
label feed: the logits of a classifier, the prediction of a regression; run/inference.py).
The data file gives the feeds that layer needs (.npy, .npz, IDX images, a table read by column
name: .csv, .tsv, .jsonl, or a folder of images; a sequence feed as ``NAME`` + ``NAME_lengths`` in
an .npz, as training reads it), through the run's saved preprocessing (preprocessing.json, never
re-fitted) and the config's transforms. A regression's values are in its target's units (the
target's numeric preprocessing and transforms undone). A classifier (its label feed is an integer) gets each
sample's class and the class probabilities (a softmax of the layer, unless the layer is a
softmax) and, with a label preprocessing, its class name; anything else gets the layer's
values; a folder of images adds each row's file (``path``). Written as .npz (arrays
named as below) or .csv (_csv_columns). A model with several outputs (run/inference.py's
output_heads), without ``--output``: each head's columns in its own units and classes, one after
the other (an .npz's arrays prefixed ``<label>_``). Rows piped in (``--data -``, a FIFO) go through
the same steps batch by batch as they arrive: run/predict_stream.py.
"""

import csv
import io
import os

import numpy as np

from ..data import file_kinds
from ..data.idx import read_idx
from ..data.images import IMAGE_EXTENSIONS, image_files
from ..data.preprocessing import lengths_feeds
from ..data.unscaling import unscaled
from ..data.ragged import Ragged, is_lengths, npz_column, plain_for_sequences
from ..data.readers import DataError, read_npy, read_npz
from ..data.missing import Missing
from ..data.sources import columns_of, table_columns
from ..data.missing import note
from ..data.tables import Table, read_table, table_format
from ..data.transforms import apply_transforms, conform
from ..base.errors import PeError
from ..base.limits import refuse_special, regular_file
from .data_notes import input_notes
from .inference import load_inference
from .progress import Progress
from .rundir import atomic_write


def read_feeds(path, feeds, columns=None, kinds=None, missing=None):
    """{feed: array} from a data file for the ``feeds`` the prediction needs. A table (.csv, .tsv,
    .jsonl) is read by column NAME: ``columns`` maps a feed to its column(s) (default: the feed's
    name), extra columns are ignored; ``kinds`` (feed -> preprocessing kind) leaves those feeds raw;
    ``missing`` (data/missing.py) says which fields are missing.
    A directory gives its image files (recursively) to the one image feed. In an .npz, an array
    ``NAME`` with ``NAME_lengths`` beside it is ragged (a Ragged: one sequence per sample), as in
    training's npz sources (data/ragged.py)."""
    kinds = kinds or {}
    if isinstance(path, Table):  # JSON rows (pe serve)
        try:
            return columns_of(path, feeds, columns or {}, kinds, missing)
        except DataError as e:
            raise PeError(e.message + (f"; {e.hint}" if e.hint else "")) from None
    if isinstance(path, (list, tuple)):  # image files named one by one
        return _image_list(path, feeds, kinds)
    if os.path.isdir(path):
        return _image_folder(path, feeds, kinds)
    refuse_special(path, "data file")
    if not os.path.isfile(path):
        raise PeError(f"data file {path} does not exist")
    fmt = table_format(path)
    try:
        if fmt is not None:
            return table_columns({"format": fmt, "path": path}, feeds, columns or {}, kinds, missing)
        kind = _array_kind(path)
        if kind == file_kinds.NPY:
            arrays = {"": read_npy(path)}
        elif kind == file_kinds.NPZ:
            arrays = read_npz(path)
        else:
            arrays = {"": read_idx(path)}
    except DataError as e:
        raise PeError(e.message + (f"; {e.hint}" if e.hint else "")) from None
    names = [k for k in arrays if not is_lengths(arrays, k)]
    try:
        if set(feeds) <= set(names):
            return {f: npz_column(arrays, f) for f in feeds}
        if len(feeds) == 1 and len(names) == 1:
            return {next(iter(feeds)): npz_column(arrays, names[0], next(iter(feeds)))}
    except DataError as e:
        raise PeError(f"{path}: {e.message}") from None
    raise PeError(
        f"{path} must hold the feeds {sorted(feeds)} (an .npz with those names, or one array "
        f"for a single feed); it holds {sorted(k for k in arrays if k) or 'one array'}"
    )


DATA_KINDS = "a CSV/TSV/JSONL table, an NPY/NPZ array, an IDX file (gzip or not) or a folder of images"


def _array_kind(path):
    """NPY, NPZ or IDX, by the file's bytes (data/file_kinds.py); a name that says otherwise, or any
    other content, is one error naming what the file is and what --data takes."""
    regular_file(path, "data file")
    found = file_kinds.sniff(path)
    said = {".npy": file_kinds.NPY, ".npz": file_kinds.NPZ}.get(os.path.splitext(path)[1].lower())
    if found in (file_kinds.NPY, file_kinds.NPZ, file_kinds.IDX, file_kinds.GZIP_IDX) and said in (None, found):
        return found
    if said is not None:
        raise PeError(f"{path} is {found}, not {said} as its name says; --data takes {DATA_KINDS}")
    hint = ""
    if found == file_kinds.TEXT:
        hint = "; a table is read by its extension: name it .csv, .tsv or .jsonl"
    elif found in file_kinds.IMAGES:
        hint = "; for images, give the folder that holds them (a model whose one input is an image feed)"
    raise PeError(f"{path} is {found}; --data takes {DATA_KINDS}{hint}")


def _image_folder(path, feeds, kinds):
    images = [f for f in feeds if kinds.get(f) == "image"]
    if len(feeds) != 1 or len(images) != 1:
        raise PeError(
            f"{path} is a directory: it gives image files to a model with one input, an image feed "
            f"(data.preprocessing kind: image); this one takes {', '.join(feeds)}"
        )
    files = image_files(path)
    if not files:
        raise PeError(f"{path} holds no image files ({', '.join(IMAGE_EXTENSIONS)})")
    return {images[0]: np.array(files, dtype=object)}


def _image_list(paths, feeds, kinds):
    """The image files ``paths`` (pe predict --data a.png --data b.png) for the one image feed."""
    for path in paths:
        refuse_special(path, "data file")
        if not os.path.isfile(path):
            raise PeError(f"data file {path} does not exist")
        found = file_kinds.sniff(path)
        if found not in file_kinds.IMAGES:
            raise PeError(f"{path} is {found}; several --data files must each be an image (PNG, JPEG, ...)")
    images = [f for f in feeds if kinds.get(f) == "image"]
    if len(feeds) != 1 or len(images) != 1:
        found = file_kinds.sniff(paths[0])
        raise PeError(
            f"{paths[0]} is {found}; image files go to a model whose one input is an image feed "
            f"(data.preprocessing kind: image), and this one takes {', '.join(feeds)} without one; "
            f"--data takes {DATA_KINDS}"
        )
    return {images[0]: np.array(list(paths), dtype=object)}


def _images_given(data_path):
    """Whether --data names image files (one or several) rather than one table, array or folder."""
    paths = data_path if isinstance(data_path, (list, tuple)) else [data_path]
    return len(paths) > 1 or (
        os.path.isfile(paths[0])
        and table_format(paths[0]) is None
        and not paths[0].lower().endswith((".npy", ".npz"))
        and file_kinds.sniff(paths[0]) in file_kinds.IMAGES
    )


def _source_columns(cfg):
    """feed -> table column(s), as the config's data sources map them (data.train's first)."""
    out = {}
    for which in ("eval", "train"):
        out.update((cfg.data["data"][which] or {}).get("columns") or {})
    return out


def _probabilities(values, already):
    """The class probabilities: the values where the output layer is a softmax (``already``), else
    their softmax over axis 1 (the ONNX export's ``prob`` is the same: export/onnx_classes.py)."""
    if already:
        return values
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def predict(cfg, checkpoint, data_path, out=None, output=None, quiet=False, probabilities=True, keep=()):
    """Runs the prediction; returns {"out", "samples", "output", "classifier", "checkpoint", "step"}.
    ``data_path``: a path, or a list of image files; ``keep``: table columns copied into the output
    (with predict.keep_columns)."""
    if out is not None and not out.endswith((".npz", ".csv")):
        raise PeError(f"-o {out}: predictions are written as .npz or .csv")
    paths = list(data_path) if isinstance(data_path, (list, tuple)) else [data_path]
    data_path = paths if _images_given(paths) else paths[0]
    if isinstance(data_path, str) and os.path.isfile(data_path) and table_format(data_path) is None:
        _array_kind(data_path)  # a file of another kind is refused before the model is built
    keep = list(dict.fromkeys([*(cfg.data.get("predict") or {}).get("keep_columns", []), *keep]))
    kept = kept_columns(data_path, keep) if keep else {}
    inference = load_inference(cfg, checkpoint, output)  # the pruned test program (run/inference.py)
    columns, files, notes = prepared_inputs(cfg, inference, data_path)
    for line in notes:
        note(f"{data_path if isinstance(data_path, str) else 'the image files'}: {line}")
    values = _run(cfg, inference, columns, quiet)
    heads = inference.heads or [inference]
    parts = [prediction_result(h, v, probabilities) + (h.label,) for h, v in zip(heads, values)]
    extra = {k: v for k, v in kept.items() if k not in ("value", "class", "class_name", "prob")}
    if files is not None:
        extra["path"] = files
    out = out or os.path.join(
        os.path.dirname(os.path.dirname(inference.checkpoint)), f"predictions-step-{inference.step}.npz"
    )
    _write(out, extra, parts, several=inference.heads is not None)
    return {
        "out": out,
        "samples": len(values[0]),
        "output": inference.output,
        "classifier": inference.kind == "classification",
        "outputs": [(h.output, h.kind == "classification") for h in heads],
        "checkpoint": inference.checkpoint,
        "step": inference.step,
    }


def prediction_result(inference, values, probabilities=True):
    """({"value"} or {"class", "prob", "class_name"}, the class names or None) of the output layer's
    ``values``: a regression's in its target's units, a classifier's classes and probabilities."""
    prep = inference.preprocessing
    classifier = inference.kind == "classification"
    if not classifier and inference.units:
        try:
            values = unscaled(inference.units, values)  # a numeric target in its own units
        except DataError as e:
            raise PeError(f"--output {inference.output}: {e.message}") from None
    result, names = {"value": values}, None
    if classifier:
        prob = _probabilities(values, inference.rows_are_probabilities)
        result = {"class": prob.argmax(axis=1), **({"prob": prob} if probabilities else {})}
        names = prep.class_names(inference.labels[0]) if prep and inference.labels else None
        if names is not None and len(result["class"]) and result["class"].max() >= len(names):
            raise PeError(
                f"--output {inference.output} gives {prob.shape[1]} class scores, and its class "
                f"{int(result['class'].max())} has no name: the run's preprocessing.json names "
                f"{len(names)} for '{inference.labels[0]}' (the model and the file disagree)"
            )
        if names is not None:
            result["class_name"] = np.array(names)[result["class"]]
    return result, names


def prepared_inputs(cfg, inference, data_path):
    """({input feed: array}, the image files of a folder or None, the notes on the data: input_notes'
    lines): the data file (or a Table of rows) read, tables by column name, and preprocessed as the
    run saved it, then the config's transforms."""
    prep = inference.preprocessing
    columns = _source_columns(cfg)
    columns.update(prep.columns() if prep else {})
    lengths = lengths_feeds(prep.feeds if prep else {})
    markers = cfg.data["data"]["missing"]
    raw = read_feeds(
        data_path,
        [f for f in inference.inputs if f not in lengths],
        columns,
        prep.kinds() if prep else {},
        prep.missing(markers) if prep else Missing(tuple(markers)),
    )
    notes = input_notes(prep, raw)
    files = None
    if isinstance(data_path, Table):  # a row's list for a sequence feed is one sequence, equal lengths or not
        raw = {k: _sequences(v) if cfg.model.feeds[k].lod_level else v for k, v in raw.items()}
        data_path = data_path.path
    elif isinstance(data_path, list):
        files = np.array([str(p) for p in next(iter(raw.values()))])
        data_path = data_path[0]
    elif os.path.isdir(data_path):
        files = np.array([os.path.relpath(str(p), data_path) for p in next(iter(raw.values()))])
    try:
        raw.update(prep.apply(raw, data_path) if prep else {})
        return {name: _conformed(cfg, name, raw[name], data_path) for name in inference.inputs}, files, notes
    except DataError as e:
        message = e.message if e.message.startswith(data_path) else f"{data_path}: {e.message}"
        raise PeError(message + (f" ({e.hint})" if e.hint else "")) from None


def _sequences(column):
    """A dense [rows, steps, ...] column as one sequence per row (a Ragged); others as they are."""
    if isinstance(column, Ragged) or getattr(column, "ndim", 0) < 2:
        return column
    return Ragged(column.reshape(-1, *column.shape[2:]), np.full(len(column), column.shape[1], dtype=np.int64))


def _conformed(cfg, name, column, data_path):
    """A column through the config's transforms, fitted to its feed; a Ragged keeps its sequences
    (the transforms apply to the steps, as in training)."""
    feed = cfg.model.feeds[name]
    ragged = isinstance(column, Ragged)
    if feed.lod_level and not ragged:
        raise plain_for_sequences(name, data_path)
    array = apply_transforms(column.values if ragged else column, cfg.data["data"]["transforms"].get(name, []))
    array = conform(array, name, feed.full_shape, feed.dtype)
    return column.with_values(array) if ragged else array


def _run(cfg, inference, columns, quiet):
    """[each output's values over all rows] (one output, unless inference.heads has several)."""
    n = len(next(iter(columns.values())))
    size = cfg.data["data"]["eval_batch_size"] or cfg.data["data"]["batch_size"]
    progress = Progress((n + size - 1) // size, quiet)
    run = inference.run_heads if inference.heads else lambda feed: [inference.run(feed)]
    parts = []
    for i, start in enumerate(range(0, n, size)):
        parts.append(run({k: v[start : start + size] for k, v in columns.items()}))
        progress.update(i + 1, 1, {}, None)
    progress.end()
    return [np.concatenate(p) for p in zip(*parts)]


def kept_columns(data_path, names):
    """{column: its fields as text} of a table's columns ``names`` (pe predict --keep)."""
    fmt = table_format(data_path) if isinstance(data_path, str) else None
    if fmt is None:
        raise PeError(
            f"--keep {names[0]}: columns are kept from a table (.csv, .tsv, .jsonl); --data gives "
            f"{data_path if isinstance(data_path, str) else 'image files'}"
        )
    try:
        table = read_table(data_path, fmt)
        return {
            name: np.array(["" if v is None else str(v) for v in table.raw(name, ("keep",), ())], dtype=str)
            for name in names
        }
    except DataError as e:
        raise PeError(f"--keep: {e.message}" + (f"; {e.hint}" if e.hint else "")) from None


def _write(out, extra, parts, several=False):
    """``extra`` (kept columns, ``path``) and each output's (result, class names, label feed) of
    ``parts``: a CSV's columns named after each label feed (_csv_columns); an .npz's arrays as they
    are, each prefixed ``<label>_`` where the model has ``several`` outputs (``price_value``,
    ``cut_class``, ``cut_prob``, ``cut_class_name``)."""
    if out.endswith(".csv"):
        buf = io.StringIO()
        writer = csv.writer(buf)
        header, columns = output_columns(extra, parts)
        writer.writerow(header)
        writer.writerows(zip(*columns))
        atomic_write(out, buf.getvalue())
        return
    arrays = dict(extra)
    for result, _, target in parts:
        arrays.update({f"{target}_{k}" if several else k: v for k, v in result.items()})
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    atomic_write(out, buf.getvalue())


def output_columns(extra, parts, number=None):
    """(header, one list per column) of the kept columns ``extra`` and each output's (result, class
    names, label feed) of ``parts``, as -o x.csv writes them (``number``: float gives numbers)."""
    header, columns = list(extra), [v.tolist() for v in extra.values()]
    for result, names, target in parts:
        h, c = _csv_columns(result, names, target, number or _exact)
        header, columns = header + h, columns + c
    return header, columns


def prediction_rows(result, names, target=None):
    """One dict per sample with the columns and values -o x.csv writes (numbers as numbers)."""
    header, columns = _csv_columns(result, names, target, float)
    return [dict(zip(header, row)) for row in zip(*columns)]


def _exact(v):
    return repr(float(v))  # float64's shortest exact text


def _csv_columns(result, names, target=None, number=_exact):
    """(header, one list per column) of the predictions as CSV, named after the ``target`` (the label
    feed): a regression's ``temp_max`` (``temp_max_0``, ... for several values), a classifier's
    ``species`` (the class name, else its id), ``species_id`` beside a name, ``species_prob_<class>``;
    without a label feed ``value_<j>``, ``class``, ``prob_<j>``. Kept columns and ``path`` first."""
    header, columns = [], []
    for key, value in result.items():
        if key not in ("value", "class", "class_name", "prob"):
            header.append(key)
            columns.append(value.tolist())
    if "class" not in result:
        flat = result["value"].reshape(len(result["value"]), -1)
        stem = target or "value"
        header += [stem] if target and flat.shape[1] == 1 else [f"{stem}_{j}" for j in range(flat.shape[1])]
        return header, columns + [[number(v) for v in c] for c in flat.T]
    stem = target or "class"
    if "class_name" in result:
        header += [stem, f"{stem}_id"]
        columns += [result["class_name"].tolist(), result["class"].tolist()]
    else:
        header.append(stem)
        columns.append(result["class"].tolist())
    prob = result.get("prob")
    if prob is not None:
        labels = names if names is not None and len(names) == prob.shape[1] else range(prob.shape[1])
        header += [f"{target}_prob_{j}" if target else f"prob_{j}" for j in labels]
        columns += [[number(p) for p in c] for c in prob.T]
    return header, columns
