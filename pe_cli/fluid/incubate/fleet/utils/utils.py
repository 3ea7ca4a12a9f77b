"""``paddle.fluid.incubate.fleet.utils.utils``: programs as files (binary, or protobuf text), checks of
a pruned program against its training program, drawings of a block, a program's variables and ops
listed in files, and ``check_saved_vars_try_dump``: load a saved inference model, check its
parameters' shapes and run it on random (or file) feeds."""

from __future__ import absolute_import, print_function  # noqa: F401

import logging
import os
import shutil
import subprocess
from collections import OrderedDict

import numpy as np

from .... import core, debugger  # noqa: F401
from ....executor import Executor, global_scope, scope_guard
from ....framework import Program
from ....proto import framework_messages as framework_pb2
from ....unsupported import optional_module
from .....base.places import CPUPlace
from .....data.feeder import DataFeeder
from .....executor.scope import Scope
from .....framework.lod_tensor import create_lod_tensor
from .....io.checkpoint import is_persistable
from .....io.inference import load_inference_model

__all__ = [
    "load_program",
    "save_program",
    "program_type_trans",
    "check_saved_vars_try_dump",
    "parse_program",
    "check_pruned_program_vars",
    "graphviz",
]
text_format = optional_module("google.protobuf.text_format", "protobuf")
logger = logging.getLogger(__name__)
persistable_vars_out_fn, all_vars_out_fn, ops_out_fn = "vars_persistable.log", "vars_all.log", "ops.log"
feed_fetch_type_list = [core.VarDesc.VarType.FEED_MINIBATCH, core.VarDesc.VarType.FETCH_LIST]
not_expected_op_types = ["lookup_table"]


def load_program(model_filename, is_text=False):
    """The Program in ``model_filename``: its ProgramDesc's bytes (or pe's earlier JSON of them), or its protobuf
    text (Fluid's: Program.parse_from_string of either)."""
    if is_text:
        with open(model_filename) as f:
            desc = text_format.Merge(f.read(), framework_pb2.ProgramDesc())
        return Program.parse_from_string(desc.SerializeToString())
    with open(model_filename, "rb") as f:
        return Program.parse_from_string(f.read())


def save_program(program, model_filename="__model__", is_text=False):
    """Writes ``program`` as text (its listing) or as ``program.desc.serialize_to_string()``."""
    if is_text:
        with open(model_filename, "w") as f:
            f.write(str(program))
    else:
        with open(model_filename, "wb") as f:
            f.write(program.desc.serialize_to_string())


def program_type_trans(prog_dir, prog_fn, is_text):
    """Writes the program ``prog_dir/prog_fn`` in the other form (``.bin`` from text, ``.pbtxt``
    from binary); returns the new file's name."""
    prog = load_program(os.path.join(prog_dir, prog_fn), is_text)
    out = prog_fn + (".bin" if is_text else ".pbtxt")
    save_program(prog, os.path.join(prog_dir, out), not is_text)
    return out


def check_pruned_program_vars(train_prog, pruned_prog):
    """True when every persistable variable of the pruned program is in the training program with
    the same shape and dtype (each difference logged)."""
    match = True
    pruned = OrderedDict((v.name, v) for v in pruned_prog.list_vars() if is_persistable(v))
    logger.info(f"persistable vars in pruned program: {list(pruned)}")
    for name, var in pruned.items():
        if var.type in feed_fetch_type_list:
            break
        if name not in train_prog.global_block().vars:
            logger.error(f"not find variable '{name}' in train program. please check pruning.")
            continue
        train_var = train_prog.global_block().var(name)
        if var.shape != train_var.shape or var.dtype != train_var.dtype:
            logger.error(
                f"variable: {name} not match. in pruned program shape: {var.shape} dtype:{var.dtype}, "
                f"in train program shape: {train_var.shape} dtype: {train_var.dtype}"
            )
            match = False
    return match


def graphviz(block, output_dir="", filename="debug"):
    """Draws the block as ``output_dir/filename.dot`` (and ``.pdf`` where graphviz's dot is installed)."""
    dot_path = os.path.join(output_dir, filename + ".dot")
    debugger.draw_block_graphviz(block, path=dot_path)
    if shutil.which("dot"):
        subprocess.run(
            ["dot", "-Tpdf", dot_path, "-o", os.path.join(output_dir, filename + ".pdf")],
            capture_output=True,
            check=False,
        )


def _describe(v, with_type=True):
    if v.type in feed_fetch_type_list:
        return {"name": str(v.name), "type": str(v.type)}
    out = {"name": str(v.name), "shape": str(v.shape), "lod_level": int(v.lod_level or 0), "dtype": str(v.dtype)}
    return dict(out, type=str(v.type)) if with_type else out


def parse_program(program, output_dir):
    """Lists the program's persistable variables, all its variables and its ops in three files of
    ``output_dir`` (vars_persistable.log, vars_all.log, ops.log)."""
    persistable = [_describe(v) for v in program.list_vars() if is_persistable(v)]
    every = [_describe(v, with_type=False) for v in program.list_vars()]
    ops = [
        {"type": op.type, "inputs": dict(op.inputs), "outputs": dict(op.outputs)} for op in program.global_block().ops
    ]
    for fn, title, rows in (
        (persistable_vars_out_fn, "persistable vars:", persistable),
        (all_vars_out_fn, "all vars:", every),
        (ops_out_fn, "ops:", ops),
    ):
        with open(os.path.join(output_dir, fn), "w") as f:
            f.write(title + "\n" + "".join(f"{r}\n" for r in rows))


def _random_feeds(program, feed_config, batch_size, place):
    feeds = []
    for name, dims, dtype in zip(
        feed_config.feeded_vars_names, feed_config.feeded_vars_dims, feed_config.feeded_vars_types
    ):
        value = np.array(np.random.random(tuple([batch_size] + list(dims))), dtype=dtype)
        lod = program.global_block().var(name).lod_level or 0
        if lod >= 2:
            raise RuntimeError("vars with lod_level >= 2 is not supported now in this infer program check tool.")
        feeds.append(create_lod_tensor(value, [[1] * batch_size], place) if lod == 1 else value)
    return dict(zip(feed_config.feeded_vars_names, feeds))


def _file_feeds(program, feed_config, batch_size, place):
    """One batch per feed from its file of space-separated numbers."""
    rows = []
    for fn, dims in zip(feed_config.feeded_vars_filelist, feed_config.feeded_vars_dims):
        with open(fn) as f:
            values = np.array([float(x) for line in f for x in line.split()])
        per = int(np.prod(dims))
        rows.append(values[: per * batch_size].reshape([batch_size] + list(dims)))
    feeder = DataFeeder([program.global_block().var(n) for n in feed_config.feeded_vars_names], place)
    return feeder.feed(list(zip(*rows)))


def _check_feed_shapes(program, feed_config):
    assert len(feed_config.feeded_vars_names) == len(feed_config.feeded_vars_dims) == len(feed_config.feeded_vars_types)
    for i, name in enumerate(feed_config.feeded_vars_names):
        dims = feed_config.feeded_vars_dims[i]
        feed_config.feeded_vars_dims[i] = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
        want = tuple(program.global_block().var(name).shape[1:])
        if feed_config.feeded_vars_dims[i] != want:
            raise RuntimeError(
                f"feed variable '{name}' shape not match. infer program  shape: {want}. feed tensor "
                f"shape: {feed_config.feeded_vars_dims[i]}"
            )


def check_saved_vars_try_dump(
    dump_dir, dump_prog_fn, is_text_dump_program, feed_config, fetch_config, batch_size=1, save_filename=None
):
    """Loads the inference model of ``dump_dir`` (its program ``dump_prog_fn``, parameters in
    ``save_filename``), checks each parameter's saved shape against the program, runs it on
    ``feed_config``'s feeds (random unless ``feeded_vars_filelist``) and returns the fetched values."""
    dump_prog = load_program(os.path.join(dump_dir, dump_prog_fn), is_text_dump_program)
    saved = {v.name: tuple(v.shape) for v in dump_prog.list_vars() if is_persistable(v)}
    logger.info(f"persistable vars in dump program: {list(saved)}")
    for op_type in sorted({op.type for op in dump_prog.global_block().ops} & set(not_expected_op_types)):
        logger.warning(f"find op type '{op_type}' in program, please check if your program is pruned correctly !")
    if is_text_dump_program:
        dump_prog_fn = program_type_trans(dump_dir, dump_prog_fn, is_text_dump_program)
    place, exe = CPUPlace(), Executor(CPUPlace())
    with scope_guard(Scope()):
        program, feed_names, fetches = load_inference_model(
            dump_dir, exe, model_filename=dump_prog_fn, params_filename=save_filename
        )
        for name, shape in saved.items():
            var = global_scope().find_var(name)
            assert var is not None, "can't not find var: " + name
            if np.array(var.get_tensor()).shape != shape:
                raise RuntimeError(
                    f"Shape not matching: the Program requires a parameter with a shape of ({shape}), "
                    f"while the loaded parameter (namely [ {name} ]) has a shape of  "
                    f"({np.array(var.get_tensor()).shape})."
                )
        if fetch_config.fetch_vars_names is not None:
            fetches = [program.global_block().var(n) for n in fetch_config.fetch_vars_names]
        _check_feed_shapes(program, feed_config)
        make = _file_feeds if feed_config.feeded_vars_filelist else _random_feeds
        results = exe.run(
            program,
            feed=make(program, feed_config, batch_size, place),
            fetch_list=fetches,
            return_numpy=all((v.lod_level or 0) == 0 for v in fetches),
        )
    for v, r in zip(fetches, results):
        logger.info(f"fetch_targets name: {v.name}")
        logger.info(f"fetch_targets: {r}")
    return results
