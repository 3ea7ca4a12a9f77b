"""Fluid 1.8's ``contrib.utils.lookup_table_utils``: loading a model trained with a distributed
lookup table (a table kept on the parameter servers and looked up through prefetch ops).

pe's DistributeTranspiler keeps lookup tables whole on the trainers, so a pe program never holds a
distributed table: ``convert_dist_to_sparse_program`` has nothing to convert (as Fluid says for
such a program, it warns and returns None), and the two loaders load the table as the one dense
variable it is, from its own file, and every other persistable from ``dirname``."""

import logging
import os

from ....base.errors import PeError
from ....executor import global_scope
from ....framework import Program
from ....io.checkpoint import is_persistable, load_vars, read_saved
from ....io.fluid_model import load_program_desc

__all__ = ["load_persistables_for_increment", "load_persistables_for_inference", "convert_dist_to_sparse_program"]

_logger = logging.getLogger("lookup_table_utils")
model_filename = "__model__"
lookup_table_dir = "__lookup_table__"


def convert_dist_to_sparse_program(program):
    """The program with its distributed lookup table made a local sparse one; a program without one
    (every program pe builds) is left alone: a warning, and None, as in Fluid."""
    if not getattr(program, "_distributed_lookup_table", None):
        _logger.warning("There are no distributed lookup tables need to be converted")
        return None
    raise PeError(
        "convert_dist_to_sparse_program: pe's programs keep lookup tables whole; a program naming a "
        "distributed table was not built by pe"
    )


def _load_table(fn, var_name, path):
    """Reads the table saved at ``path`` (pe's ``<name>.npy`` or Fluid's tensor file ``<name>``)
    into the global scope as ``var_name``."""
    arrays = read_saved(fn, os.path.dirname(path) or ".", [os.path.basename(path)])
    global_scope().set_array(var_name, next(iter(arrays.values())))


def load_persistables_for_increment(dirname, executor, program, lookup_table_var, lookup_table_var_path):
    """For incremental training: every persistable of ``program`` from ``dirname``, except the
    table ``lookup_table_var``, which is read from the file ``lookup_table_var_path``."""
    if not os.path.isdir(dirname):
        raise ValueError(f"There is no directory named '{dirname}'")
    if not os.path.exists(lookup_table_var_path) and not os.path.exists(lookup_table_var_path + ".npy"):
        raise ValueError(f"There is no file named '{lookup_table_var_path}'")
    if not isinstance(program, Program):
        raise ValueError("program must be an instance of fluid.Program")
    load_vars(executor, dirname, program, predicate=lambda v: is_persistable(v) and v.name != lookup_table_var)
    _load_table("load_persistables_for_increment", lookup_table_var, lookup_table_var_path)


def _is_checkpoint_var(excluded):
    def is_valid(var):
        if any(part in var.name for part in ("@GRAD", ".trainer_", ".block", "tmp_")) or var.name in excluded:
            return False
        return is_persistable(var)

    return is_valid


def load_persistables_for_inference(dirname, executor, program, lookup_table_var_name):
    """For local inference: ``program`` (None: ``dirname/__model__``) with its persistables loaded
    from ``dirname`` and the table ``lookup_table_var_name`` from ``dirname/__lookup_table__/``.
    Returns the program."""
    if not os.path.isdir(dirname):
        raise ValueError(f"There is no directory named '{dirname}'")
    if program:
        if not isinstance(program, Program):
            raise ValueError("program must be an instance of fluid.Program")
    else:
        path = os.path.join(dirname, model_filename)
        with open(path, "rb") as f:
            program = load_program_desc(path, f.read())[0]
    load_vars(executor, dirname, program, predicate=_is_checkpoint_var([lookup_table_var_name]))
    table_dir = os.path.join(dirname, lookup_table_dir)
    if not os.path.isdir(table_dir):
        raise ValueError(f"There is no directory named '{table_dir}'")
    _load_table(
        "load_persistables_for_inference", lookup_table_var_name, os.path.join(table_dir, lookup_table_var_name)
    )
    return program
