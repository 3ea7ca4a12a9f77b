"""Inference models that PaddlePaddle Fluid saved (``save_inference_model``: ``__model__`` a protobuf
ProgramDesc, the parameters in Fluid's LoDTensor files), loaded into a pe Program to run: the ProgramDesc
read by pe_cli/framework/fluid_model_read.py (feed and fetch ops left to the executor). Parameters are the
persistable variables, which ``load_vars`` reads from Fluid's files (one each, named as the variable, or
``params_filename`` holding them all by sorted name: pe_cli/io/checkpoint.py).
"""

from ..base.fluid_proto import looks_like_program_desc, parse_program_desc  # noqa: F401 (re-exported)
from ..base.errors import PeError
from ..framework import Program
from ..framework.fluid_model_read import read_program_desc


def program_from_desc(desc, where):
    """(Program, feed names in ``col`` order, fetch names in ``col`` order) of a ProgramDesc."""
    program = Program()
    feeds, fetches = read_program_desc(program, desc, where)
    return program, feeds, fetches


def load_program_desc(path, data):
    """(Program, feed names, fetch names) of an inference model file: it has fetch ops, as Fluid's
    save_inference_model writes them (it refuses to save a model without a target), unless it is the
    whole program that save_inference_model(export_for_deployment=False) writes to
    ``<model file>.main_program``, without feed or fetch ops."""
    program, feeds, fetches = program_from_desc(parse_program_desc(data, path), path)
    if not fetches and not str(path).endswith(".main_program"):
        raise PeError(
            f"{path}: the model has no fetch op, so it has no output to give: an inference model "
            f"(save_inference_model's __model__, a .pdmodel) fetches its targets with fetch ops"
        )
    return program, feeds, fetches
