"""Paddle 2.x's model files (``paddle.static``, seed 002), in the formats of inference.py:

- ``save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None)`` writes
  ``<path_prefix>.pdmodel`` (the ProgramDesc) and ``<path_prefix>.pdiparams`` (the parameters it
  reads, Fluid's LoDTensors end to end by sorted name; none without parameters), and
  ``load_inference_model(path_prefix, executor)`` reads them back (a directory: Fluid 1.x's layout,
  with ``model_filename``/``params_filename``);
- ``serialize_program`` / ``serialize_persistables`` give those two files' bytes,
  ``deserialize_program`` / ``deserialize_persistables`` take them back, ``save_to_file`` /
  ``load_from_file`` write and read bytes; ``normalize_program`` is the pruned inference Program."""

import os

from ..base.errors import PeError
from ..base.limits import refuse_special, regular_file
from ..executor.scope import global_scope
from ..framework import Program
from ..framework.variable import Variable
from .atomic import write_file
from .checkpoint import combined_values, fluid_files, is_persistable, variable_tensors
from .fluid_model import program_from_desc
from ..base.fluid_proto import parse_program_desc
from .inference import inference_model, load_inference_model as _load_dir, save_inference_model as _save_dir

__all__ = [
    "save_inference_model",
    "load_inference_model",
    "serialize_program",
    "serialize_persistables",
    "deserialize_program",
    "deserialize_persistables",
    "normalize_program",
    "save_to_file",
    "load_from_file",
]

_IGNORED = {"clip_extra", "legacy_format"}  # Paddle 2.x options about its own format's variants


def _program(fn, kwargs):
    unknown = set(kwargs) - {"program"} - _IGNORED
    if unknown:
        raise TypeError(f"{fn}: unexpected keyword arguments {sorted(unknown)} (it takes program=)")
    return kwargs.get("program")


def _split(fn, path_prefix):
    if not isinstance(path_prefix, (str, os.PathLike)):
        raise TypeError(f"{fn}: path_prefix must be a path, got {path_prefix!r}")
    path_prefix = os.fspath(path_prefix)
    dirname, base = os.path.split(path_prefix)
    if not base or os.path.isdir(path_prefix):
        raise PeError(
            f"{fn}: path_prefix '{path_prefix}' must name files (dir/model -> dir/model.pdmodel), not a directory"
        )
    return dirname or ".", base


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    """Writes ``path_prefix.pdmodel`` and ``path_prefix.pdiparams``."""
    fn = "save_inference_model"
    program = _program(fn, kwargs)
    dirname, base = _split(fn, path_prefix)
    _save_dir(
        dirname,
        feed_vars,
        fetch_vars,
        executor,
        main_program=program,
        model_filename=base + ".pdmodel",
        params_filename=base + ".pdiparams",
    )


def load_inference_model(path_prefix, executor, **kwargs):
    """[program, feed names, fetch variables] of what save_inference_model wrote (or of a Fluid 1.x
    model directory, given one), the parameters set in the global scope."""
    fn = "load_inference_model"
    unknown = set(kwargs) - {"model_filename", "params_filename"}
    if unknown:
        raise TypeError(f"{fn}: unexpected keyword arguments {sorted(unknown)}")
    if os.path.isdir(os.fspath(path_prefix)):
        return _load_dir(os.fspath(path_prefix), executor, kwargs.get("model_filename"), kwargs.get("params_filename"))
    dirname, base = _split(fn, path_prefix)
    params = base + ".pdiparams"
    return _load_dir(
        dirname,
        executor,
        model_filename=base + ".pdmodel",
        params_filename=params if os.path.isfile(os.path.join(dirname, params)) else None,
    )


def serialize_program(feed_vars, fetch_vars, **kwargs):
    """The bytes of the ProgramDesc that computes ``fetch_vars`` from ``feed_vars`` (a .pdmodel)."""
    fn = "serialize_program"
    return inference_model(fn, _program(fn, kwargs), feed_vars, fetch_vars, fn)[0]


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The bytes of the persistable values that program reads (a .pdiparams), from the global scope."""
    fn = "serialize_persistables"
    _, params, _ = inference_model(fn, _program(fn, kwargs), feed_vars, fetch_vars, fn)
    return fluid_files(fn, variable_tensors(fn, params, global_scope()), "params").get("params", b"")


def deserialize_program(data):
    """The Program of serialize_program's bytes (Fluid's feed and fetch ops left to the executor)."""
    if not isinstance(data, bytes):
        raise TypeError(f"deserialize_program: data must be bytes, got {type(data).__name__}")
    return program_from_desc(parse_program_desc(data, "deserialize_program"), "deserialize_program")[0]


def normalize_program(program, feed_vars, fetch_vars, **kwargs):
    """The inference program of ``program`` that computes ``fetch_vars`` from ``feed_vars``: a test
    clone pruned to the ops they need, as a new Program (what save_inference_model writes)."""
    fn = "normalize_program"
    if not isinstance(program, Program):
        raise TypeError(f"{fn}: program type must be `Program`, but received `{type(program).__name__}`")
    for what, value in (("feed_vars", feed_vars), ("fetch_vars", fetch_vars)):
        items = value if isinstance(value, (list, tuple)) else [value]
        if not items or not all(isinstance(v, Variable) for v in items):
            raise TypeError(f"{fn}: {what} type must be a Variable or a list of Variable")
    unknown = set(kwargs) - {"skip_prune_program"}
    if unknown:
        raise TypeError(f"{fn}: unexpected keyword arguments {sorted(unknown)}")
    if kwargs.get("skip_prune_program"):
        raise PeError(
            f"{fn}: skip_prune_program=True is not supported by pe (its inference programs are "
            f"pruned to the fetched variables)"
        )
    return deserialize_program(inference_model(fn, program, feed_vars, fetch_vars, fn)[0])


def deserialize_persistables(program, data, executor):
    """Sets ``program``'s persistable values from serialize_persistables' bytes, all read and checked
    against the program before any is set."""
    fn = "deserialize_persistables"
    if not isinstance(program, Program):
        raise TypeError(f"{fn}: program must be a Program, got {type(program).__name__}")
    params = [v for v in program.global_block().vars.values() if is_persistable(v)]
    scope = global_scope()
    for name, (array, lod) in combined_values(fn, data, fn, params).items():
        scope.set_array(name, array, lod)


def save_to_file(path, content):
    """Writes the bytes ``content`` to ``path`` (atomically: a crash leaves the old file)."""
    if not isinstance(content, bytes):
        raise TypeError(f"save_to_file: content must be bytes, got {type(content).__name__}")
    write_file(os.fspath(path), lambda f: f.write(content))


def load_from_file(path):
    """The bytes of the file ``path``."""
    refuse_special(path, "file")
    if not os.path.exists(path):
        raise PeError(f"load_from_file: '{path}' does not exist")
    regular_file(path, "file")
    with open(path, "rb") as f:
        return f.read()
