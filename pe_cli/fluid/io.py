"""``paddle.fluid.io``: checkpoints and inference models in Fluid 1.8's file formats (pe_cli/io),
``save``/``load``/``load_program_state``/``set_program_state`` in Fluid 1.8's .pdparams/.pdopt layout,
``fluid.io.batch`` (= ``paddle.batch``), the reader decorators (= ``paddle.reader``:
pe_cli/data/reader_decorators.py, reader_processes.py), and the feeding readers ``PyReader`` and
``DataLoader`` with its ``Dataset``/``BatchSampler``/``default_collate_fn`` (pe_cli/fluid/reader.py)."""
from ..io import *  # noqa: F401,F403
from ..io import __all__ as _pe_all
from ..data.batch import batch
from ..framework import Program, default_main_program
from ..io.checkpoint import as_program, is_parameter
from ..data.reader_decorators import *  # noqa: F401,F403
from ..data.reader_decorators import __all__ as _decorators
from ..data.reader_processes import multiprocess_reader
from .reader import BatchSampler, DataLoader, Dataset, PyReader, default_collate_fn

__all__ = list(_pe_all) + ["batch", "PyReader", "DataLoader", "Dataset", "BatchSampler", "default_collate_fn",
                           "multiprocess_reader"] + list(_decorators)


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
    var = program.global_block().create_var(name=para.name, shape=para.shape, dtype=para.dtype,
                                            persistable=True)
    return executor.run(program, feed={}, fetch_list=[var])[0]


def get_parameter_value_by_name(name, executor, program=None):
    """The value of the parameter named ``name`` of ``program`` (default: the default main program)."""
    program = default_main_program() if program is None else program
    return get_parameter_value(program.global_block().var(name), executor)
