"""``paddle.fluid.io``: checkpoints and inference models in Fluid 1.8's file formats (pe_cli/io),
``save``/``load``/``load_program_state``/``set_program_state`` in Fluid 1.8's .pdparams/.pdopt layout,
``fluid.io.batch`` (= ``paddle.batch``), the reader decorators (= ``paddle.reader``:
pe_cli/data/reader_decorators.py, reader_processes.py), and the feeding readers ``PyReader`` and
``DataLoader`` with its ``Dataset``/``BatchSampler``/``default_collate_fn`` (pe_cli/fluid/reader.py)."""

import logging
import os

from ..io import *  # noqa: F401,F403
from ..io import load_vars, save_vars
from ..io import __all__ as _pe_all
from ..data.batch import batch
from ..base.dtypes import VarType
from ..framework import Program, default_main_program
from ..io.checkpoint import as_program, is_parameter
from ..data.reader_decorators import *  # noqa: F401,F403
from ..data.reader_decorators import __all__ as _decorators
from ..data.reader_processes import multiprocess_reader
from .reader import BatchSampler, DataLoader, Dataset, PyReader, default_collate_fn

__all__ = (
    list(_pe_all)
    + ["batch", "PyReader", "DataLoader", "Dataset", "BatchSampler", "default_collate_fn", "multiprocess_reader"]
    + list(_decorators)
)


def _get_valid_program(main_program=None):
    """Fluid's helper: ``main_program`` (default: the default main program; a CompiledProgram's
    own) as a Program; a TypeError for anything else."""
    return as_program(main_program, "fluid.io")


def get_parameter_value(para, executor):
    """The value of parameter ``para`` in the executor's scope (as Fluid: a run of a program that
    only fetches it)."""
    if not is_parameter(para):
        raise AssertionError(f"get_parameter_value: {getattr(para, 'name', para)!r} is not a parameter")
    program = Program()
    var = program.global_block().create_var(name=para.name, shape=para.shape, dtype=para.dtype, persistable=True)
    return executor.run(program, feed={}, fetch_list=[var])[0]


def get_parameter_value_by_name(name, executor, program=None):
    """The value of the parameter named ``name`` of ``program`` (default: the default main program)."""
    program = default_main_program() if program is None else program
    return get_parameter_value(program.global_block().var(name), executor)


_logger = logging.getLogger("pe.fluid.io")


def _persistable_node_vars(graph):
    """Variables of a new program, one per name of the IrGraph's persistable nodes (no RAW or READER)."""
    block, seen = Program().global_block(), set()
    for node in sorted(graph.all_persistable_nodes(), key=lambda n: n.id()):
        desc = node.var()
        if desc.name() in seen or desc.type() in (VarType.RAW, VarType.READER):
            continue
        seen.add(desc.name())
        block.create_var(
            name=desc.name(),
            shape=desc.shape(),
            dtype=desc.dtype(),
            type=desc.type(),
            lod_level=desc.lod_level(),
            persistable=desc.persistable(),
        )
    return list(block.vars.values())


def _save_persistable_nodes(executor, dirname, graph):
    """Saves the values of the IrGraph ``graph``'s persistable variables to ``dirname`` (save_vars)."""
    save_vars(executor, dirname, vars=_persistable_node_vars(graph))


def _load_persistable_nodes(executor, dirname, graph):
    """Loads the values of the IrGraph ``graph``'s persistable variables from ``dirname``; one with
    no file there is skipped with a warning, as Fluid's."""
    found = []
    for var in _persistable_node_vars(graph):
        if any(os.path.exists(os.path.join(dirname, var.name + ext)) for ext in ("", ".npy")):
            found.append(var)
        else:
            _logger.warning("Cannot find the var %s!!!", var.name)
    load_vars(executor, dirname, vars=found)
