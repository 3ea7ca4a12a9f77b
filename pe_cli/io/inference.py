"""Inference models (Fluid 1.x ``save_inference_model``/``load_inference_model``): the forward ops
that compute the targets, as JSON (``__model__``), beside a checkpoint of the parameters they use.
``load_inference_model`` also loads the models PaddlePaddle Fluid saved (a protobuf ``__model__``
and Fluid's parameter files: pe_cli/io/fluid_model.py)."""
import json
import os
import warnings

import numpy as np

from ..errors import PeError
from ..framework import OpRole, Program
from .atomic import interrupted_hint, write_file
from .checkpoint import as_program, is_parameter, is_persistable, load_vars, save_vars
from .fluid_model import load_program_desc, looks_like_program_desc
from .inference_blocks import blocks_json, rebuild_blocks

__all__ = ["save_inference_model", "load_inference_model"]

_MODEL_FILE = "__model__"
_FORMAT = "pe-inference-model"


def _json_attr(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_json_attr(v) for v in value]
    return value


def _op_json(op):
    return dict(type=op.type, inputs=op.inputs, outputs=op.outputs,
                attrs={k: _json_attr(v) for k, v in op.attrs.items() if not k.startswith("_")})


def _prune(program, targets):
    """The forward ops that ``targets`` depend on, in order."""
    block = program.global_block()
    needed = set(targets)
    keep = []
    for op in reversed(block.ops):
        if (op.role & ~OpRole.Loss) != OpRole.Forward:
            continue
        if any(n in needed for n in op.output_arg_names):
            keep.append(op)
            needed.update(op.input_arg_names)
    return list(reversed(keep)), needed


def save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename=None, params_filename=None, export_for_deployment=True,
                         program_only=False):
    """Saves the forward ops that compute ``target_vars`` from ``feeded_var_names`` as JSON
    (``__model__`` or ``model_filename``) and the parameters they use (like ``save_vars``).
    Returns the names of the targets."""
    fn = "save_inference_model"
    program = as_program(main_program, fn)
    if isinstance(feeded_var_names, str):
        feeded_var_names = [feeded_var_names]
    target_vars = target_vars if isinstance(target_vars, (list, tuple)) else [target_vars]
    targets = [t if isinstance(t, str) else t.name for t in target_vars]
    block = program.global_block()
    for name in list(feeded_var_names) + targets:
        if not block.has_var(name):
            raise PeError(f"{fn}: '{name}' is not a variable of the program")
    with warnings.catch_warnings():   # the optimize ops a training program holds are pruned below
        warnings.simplefilter("ignore")
        test_program = program.clone(for_test=True)
    ops, used = _prune(test_program, targets)
    if not ops:
        raise PeError(f"{fn}: no forward op computes {targets}")
    produced = {n for op in ops for n in op.output_arg_names}
    missing = [n for n in used if n not in produced and n not in feeded_var_names and block.has_var(n)
               and not block.var(n).persistable]
    if missing:
        raise PeError(f"{fn}: the targets need {sorted(missing)}, which are neither fed nor persistable; "
                      f"add them to feeded_var_names")
    var_names = [n for n in block.vars if n in used or n in produced]   # every value a kept op reads or writes
    model = {
        "format": _FORMAT, "version": 1,
        "feed": list(feeded_var_names), "fetch": targets,
        "vars": [dict(name=n, shape=None if block.var(n).shape is None else list(block.var(n).shape),
                      dtype=block.var(n).dtype, lod_level=block.var(n).lod_level,
                      persistable=bool(block.var(n).persistable), parameter=is_parameter(block.var(n)))
                 for n in var_names],
        "ops": [_op_json(op) for op in ops],
        "blocks": blocks_json(test_program, _op_json),      # control flow's sub-blocks
    }
    try:
        text = json.dumps(model, indent=1, allow_nan=True)
    except TypeError as e:
        raise PeError(f"{fn}: an op attribute cannot be stored as JSON: {e}") from None
    params = [block.var(n) for n in var_names if is_persistable(block.var(n))]
    if not program_only:
        save_vars(executor, dirname, program, vars=params, filename=params_filename)
    write_file(os.path.join(dirname, model_filename or _MODEL_FILE), lambda f: f.write(text.encode()))
    return targets


def load_inference_model(dirname, executor, model_filename=None, params_filename=None, pserver_endpoints=None):
    """Loads what ``save_inference_model`` wrote; returns [program, feed names, fetch variables]
    with the parameters set in the global scope."""
    fn = "load_inference_model"
    path = os.path.join(dirname, model_filename or _MODEL_FILE)
    if not os.path.isfile(path):
        raise PeError(f"{fn}: '{path}' does not exist{interrupted_hint(dirname)}")
    with open(path, "rb") as f:
        data = f.read()
    if looks_like_program_desc(data):          # saved by PaddlePaddle Fluid (pe_cli/io/fluid_model.py)
        return _load_fluid_model(dirname, path, data, executor, params_filename)
    try:
        model = json.loads(data.decode())
        if model.get("format") != _FORMAT:
            raise ValueError(f"format is {model.get('format')!r}")
    except Exception as e:
        raise PeError(f"{fn}: '{path}' is not a pe inference model: {type(e).__name__}: {e}") from None
    program = Program()
    block = program.global_block()
    for v in model["vars"]:
        if v.get("parameter"):
            block.create_parameter(v["name"], v["shape"], v["dtype"], trainable=False)
        else:
            block.create_var(name=v["name"], shape=v["shape"], dtype=v["dtype"], lod_level=v["lod_level"],
                             persistable=v["persistable"], is_data=v["name"] in model["feed"],
                             need_check_feed=v["name"] in model["feed"], stop_gradient=True)
    rebuild_blocks(program, model.get("blocks", []))
    for op in model["ops"]:
        block.append_op(op["type"], op["inputs"], op["outputs"], op["attrs"])
    program._is_test = True
    params = [v for v in block.vars.values() if is_persistable(v)]
    load_vars(executor, dirname, program, vars=params, filename=params_filename)
    return [program, list(model["feed"]), [block.var(n) for n in model["fetch"]]]


def _load_fluid_model(dirname, path, data, executor, params_filename):
    program, feeds, fetches = load_program_desc(path, data)
    block = program.global_block()
    load_vars(executor, dirname, program, vars=[v for v in block.vars.values() if is_persistable(v)],
              filename=params_filename)
    return [program, feeds, [block.var(n) for n in fetches]]
