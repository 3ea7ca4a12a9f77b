"""Inference models (Fluid 1.x ``save_inference_model``/``load_inference_model``): the forward ops
that compute the targets and the parameters they use, in Fluid's formats (a protobuf ``__model__``
and Fluid's LoDTensor files: pe_cli/io/fluid_model.py), so that pe and PaddlePaddle load each
other's models. ``load_inference_model`` still reads the JSON ``__model__`` and ``.npy`` parameters
that pe wrote before it wrote Fluid's format."""

import os
import warnings

from ..base import json_once
from ..base.errors import PeError
from ..base.limits import check_blocks, check_bytes, check_dims, file_kind, refuse_special, regular_file
from ..framework import OpRole, Program, program_guard
from ..framework.variable import Variable
from .atomic import interrupted_hint, write_dir
from ..executor.scope import global_scope
from ..layers.elementwise import scale
from ..ops import registry
from .checkpoint import as_program, fluid_files, is_persistable, load_vars, variable_tensors
from .fluid_model import load_program_desc, looks_like_program_desc
from ..framework.fluid_model_write import program_to_desc, whole_program_desc
from .inference_blocks import rebuild_blocks

__all__ = ["save_inference_model", "load_inference_model"]

_MODEL_FILE = "__model__"
_FORMAT = "pe-inference-model"


def _prune(program, targets, feeds=()):
    """The forward ops that ``targets`` depend on, in order, none upstream of a fed variable: a feed that an op
    writes (an op's output) is where the saved program starts, as Paddle's prune with inputs cuts there."""
    block = program.global_block()
    needed = set(targets) - set(feeds)
    keep = []
    for op in reversed(block.ops):
        if (op.role & ~OpRole.Loss) != OpRole.Forward:
            continue
        if any(n in needed for n in op.output_arg_names):
            keep.append(op)
            needed.update(n for n in op.input_arg_names if n not in feeds)
    return list(reversed(keep)), needed


def whole_program(fn, main_program, target_vars, where):
    """(the ProgramDesc bytes of the whole program, its persistable variables, the target names):
    what save_inference_model writes with export_for_deployment=False."""
    program = as_program(main_program, fn)
    targets = [t if isinstance(t, str) else t.name for t in _scaled_targets(program, target_vars)]
    params = [v for v in program.global_block().vars.values() if is_persistable(v)]
    return whole_program_desc(program, where), params, targets


def _scaled_targets(program, target_vars):
    """Fluid's save_inference_model appends ``scale(x, 1.0)`` named save_infer_model/scale_<i> to
    ``program`` for each target Variable (so an activation's output survives its inference passes)
    and saves those as the fetch targets; names stay names."""
    target_vars = target_vars if isinstance(target_vars, (list, tuple)) else [target_vars]
    out = []
    with program_guard(program):
        for i, var in enumerate(target_vars):
            out.append(scale(var, 1.0, name=f"save_infer_model/scale_{i}") if isinstance(var, Variable) else var)
    return out


def target_names(program, fetches):
    """The names a user knows an inference model's fetch targets by: Fluid's save_inference_model
    saves each target Variable as ``save_infer_model/scale_<i>``, a scale by 1 of the variable itself,
    which gives the name here (``logits.tmp_1``); any other target keeps its own (as does a variable
    two targets scale)."""
    writers = {n: op for op in program.global_block().ops for n in op.output_arg_names}
    names = []
    for var in fetches:
        op = writers.get(var.name)
        saved = var.name.startswith("save_infer_model/scale_") and op is not None and op.input_arg_names
        names.append(op.input_arg_names[0] if saved else var.name)
    return [n if names.count(n) == 1 else v.name for n, v in zip(names, fetches)]


def inference_model(fn, main_program, feeded_var_names, target_vars, where):
    """(the ProgramDesc bytes of the forward ops computing ``target_vars`` from ``feeded_var_names``,
    the persistable variables they read, the target names): what save_inference_model writes and
    paddle.static's serialize_program / serialize_persistables return. Targets and feeds may be
    Variables or names."""
    program = as_program(main_program, fn)
    feeds = [feeded_var_names] if isinstance(feeded_var_names, (str, Variable)) else list(feeded_var_names)
    feeds = [f if isinstance(f, str) else f.name for f in feeds]
    targets = [t if isinstance(t, str) else t.name for t in _scaled_targets(program, target_vars)]
    block = program.global_block()
    for name in feeds + targets:
        if not block.has_var(name):
            raise PeError(f"{fn}: '{name}' is not a variable of the program")
    with warnings.catch_warnings():  # the optimize ops a training program holds are pruned below
        warnings.simplefilter("ignore")
        test_program = program.clone(for_test=True)
    ops, used = _prune(test_program, targets, feeds)
    if not ops:
        raise PeError(f"{fn}: no forward op computes {targets}")
    produced = {n for op in ops for n in op.output_arg_names}
    missing = [
        n for n in used if n not in produced and n not in feeds and block.has_var(n) and not block.var(n).persistable
    ]
    if missing:
        raise PeError(
            f"{fn}: the targets need {sorted(missing)}, which are neither fed nor persistable; add them to the feeds"
        )
    var_names = [
        n for n in block.vars if n in used or n in produced or n in feeds
    ]  # every value a kept op reads or writes
    params = [block.var(n) for n in var_names if is_persistable(block.var(n))]
    return program_to_desc(test_program, ops, var_names, feeds, targets, where), params, targets


def _warn_of_metric_states(program):
    """Fluid's warning for a program with an auc op: the saved model keeps its accumulated state (here:
    any metric op that writes persistable state)."""
    block = program.global_block()
    for op in block.ops:
        if registry.get(op.type).has("metric") and any(
            block.has_var(n) and block.var(n).persistable for n in op.output_arg_names
        ):
            warnings.warn("please ensure that you have set the auc states to zeros before saving inference model")
            return


def save_inference_model(
    dirname,
    feeded_var_names,
    target_vars,
    executor,
    main_program=None,
    model_filename=None,
    params_filename=None,
    export_for_deployment=True,
    program_only=False,
):
    """Saves the forward ops that compute ``target_vars`` from ``feeded_var_names`` in Fluid's
    formats, which PaddlePaddle loads too: a protobuf ProgramDesc (``__model__`` or
    ``model_filename``) and the parameters they use as Fluid's LoDTensor files (one per variable,
    named as it, or all in ``params_filename``), written as one atomic directory update.
    Returns the names of the targets."""
    fn = "save_inference_model"
    _warn_of_metric_states(as_program(main_program, fn))
    model_file = os.path.basename(model_filename) if model_filename else _MODEL_FILE
    params_filename = os.path.basename(params_filename) if params_filename else None
    if export_for_deployment:
        model, params, targets = inference_model(
            fn, main_program, feeded_var_names, target_vars, os.path.join(dirname, model_file)
        )
        files = {model_file: model}
    else:  # as Fluid: the whole program, unpruned, in <model file>.main_program, and every persistable
        model_file += ".main_program"
        model, params, targets = whole_program(fn, main_program, target_vars, os.path.join(dirname, model_file))
        files = {model_file: model}
    if not program_only and not params:  # Fluid's save_vars warns and writes no parameters file
        warnings.warn("no variable in your model, please ensure there are any variables in your model to save")
    elif not program_only:
        params_files = fluid_files(fn, variable_tensors(fn, params, global_scope()), params_filename)
        if model_file in params_files:
            raise PeError(
                f"{fn}: the parameters' file '{model_file}' would overwrite the model; "
                f"give another model_filename or params_filename"
            )
        files.update(params_files)
    write_dir(dirname, files)
    return targets


def load_inference_model(dirname, executor, model_filename=None, params_filename=None, pserver_endpoints=None):
    """Loads what ``save_inference_model`` wrote; returns [program, feed names, fetch variables]
    with the parameters set in the global scope."""
    fn = "load_inference_model"
    if dirname is None:  # Fluid's load from memory: the model's and the parameters' bytes
        return _load_from_memory(fn, executor, model_filename, params_filename)
    path = os.path.join(dirname, model_filename or _MODEL_FILE)
    refuse_special(dirname, "model directory")
    if file_kind(path) == "missing":
        raise PeError(f"{fn}: '{path}' does not exist{interrupted_hint(dirname)}")
    regular_file(path, "model file")
    # a parsed ProgramDesc takes about 20 bytes of memory per byte of the file (a million ops: 27 MB, 540 MB)
    check_bytes(os.path.getsize(path) * 20, f"{fn}: '{path}' ({os.path.getsize(path):,} bytes, parsed)")
    with open(path, "rb") as f:
        data = f.read()
    if looks_like_program_desc(data):  # saved by PaddlePaddle Fluid (pe_cli/io/fluid_model.py)
        return _load_fluid_model(dirname, path, data, executor, params_filename)
    try:
        model = json_once.loads(data.decode())
        if not isinstance(model, dict) or model.get("format") != _FORMAT:
            raise ValueError(f"format is {model.get('format') if isinstance(model, dict) else None!r}")
    except Exception as e:
        raise PeError(f"{fn}: '{path}' is not a pe inference model: {type(e).__name__}: {e}") from None
    try:
        program = _json_program(model, path)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        what = f"has no key {e}" if isinstance(e, KeyError) else f"is damaged ({type(e).__name__}: {e})"
        raise PeError(f"{fn}: '{path}' {what}; save the model again") from None
    block = program.global_block()
    params = [v for v in block.vars.values() if is_persistable(v)]
    load_vars(executor, dirname, program, vars=params, filename=params_filename)
    return [program, list(model["feed"]), [block.var(n) for n in model["fetch"]]]


def _json_program(model, path):
    """The Program of a JSON ``__model__`` that pe wrote, its blocks and dims checked first."""
    blocks = model.get("blocks", [])
    check_blocks(
        [-1] + [b["parent"] for b in blocks],
        [len(model["ops"])] + [len(b["ops"]) for b in blocks],
        path,
        len(model["vars"]) + sum(len(b.get("vars", ())) for b in blocks),
    )
    program = Program()
    block = program.global_block()
    for v in model["vars"]:
        if v.get("parameter") or v.get("persistable") or v["name"] in model["feed"]:
            check_dims(
                v["shape"], f"{path}: variable '{v['name']}'", known=bool(v.get("parameter") or v.get("persistable"))
            )
        if v.get("parameter"):
            block.create_parameter(v["name"], v["shape"], v["dtype"], trainable=False)
        else:
            block.create_var(
                name=v["name"],
                shape=v["shape"],
                dtype=v["dtype"],
                lod_level=v["lod_level"],
                persistable=v["persistable"],
                is_data=v["name"] in model["feed"],
                need_check_feed=v["name"] in model["feed"],
                stop_gradient=True,
            )
    rebuild_blocks(program, blocks)
    for op in model["ops"]:
        block.append_op(op["type"], op["inputs"], op["outputs"], op["attrs"])
    program._is_test = True
    return program


def _load_from_memory(fn, executor, model, params):
    if params is None:
        raise ValueError("The path of params cannot be None when the directory path is None.")
    if not isinstance(model, (bytes, bytearray)) or not isinstance(params, (bytes, bytearray)):
        raise TypeError(
            f"{fn}: with dirname None, model_filename and params_filename are the model's and the "
            f"parameters' bytes (save_persistables(exe, None, ...) gives the latter)"
        )
    return _load_fluid_model(None, "the model bytes", bytes(model), executor, bytes(params))


def _load_fluid_model(dirname, path, data, executor, params_filename):
    program, feeds, fetches = load_program_desc(path, data)
    block = program.global_block()
    load_vars(
        executor, dirname, program, vars=[v for v in block.vars.values() if is_persistable(v)], filename=params_filename
    )
    return [program, feeds, [block.var(n) for n in fetches]]
