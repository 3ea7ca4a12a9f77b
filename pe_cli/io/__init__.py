"""Checkpoints and inference models (Fluid 1.x ``fluid.io``).

- checkpoint.py: ``save_vars``/``load_vars`` and the params/persistables shorthands, in Fluid's
  tensor files (checkpoint_files.py; pe's earlier ``.npy``/``.npz`` read too), never unpickled;
  loads checked first. ``save_npy_persistables``: pe's run directories' own ``.npy`` checkpoints.
- atomic.py: the atomic writes behind them (a crash never leaves a half-written checkpoint).
- inference.py: ``save_inference_model``/``load_inference_model`` (Fluid's protobuf program and
  LoDTensor parameter files: fluid_model.py reads, pe_cli/framework/fluid_model_write.py writes,
  pe_cli/base/fluid_proto.py).
- static_io.py: Paddle 2.x's ``paddle.static`` model files (``save_inference_model(path_prefix)``,
  ``serialize_*``/``deserialize_*``, ``save_to_file``/``load_from_file``), the same formats.
- program_state.py: Fluid 1.8's ``save``/``load``/``load_program_state``/``set_program_state``
  (``.pdparams``/``.pdopt`` pickles written opcode by opcode in pdparams_write.py and parsed, never
  unpickled, by pdparams.py; ``.pdmodel`` Fluid's ProgramDesc).

Optimizer state (moments, beta powers, learning rates, ``@LR_DECAY_COUNTER@``) is persistable, so
``save_persistables`` then ``load_persistables`` resumes training exactly.
"""

from .checkpoint import (
    is_parameter,
    is_persistable,
    load_params,
    load_persistables,
    load_vars,
    save_npy_persistables as save_npy_persistables,
    save_params,
    save_persistables,
    save_vars,
)
from .inference import load_inference_model, save_inference_model
from .program_state import (
    get_program_parameter,
    get_program_persistable_vars,
    load,
    load_program_state,
    save,
    set_program_state,
)

__all__ = [
    "save_vars",
    "load_vars",
    "save_params",
    "load_params",
    "save_persistables",
    "load_persistables",
    "save_inference_model",
    "load_inference_model",
    "is_parameter",
    "is_persistable",
    "save",
    "load",
    "load_program_state",
    "set_program_state",
    "get_program_parameter",
    "get_program_persistable_vars",
]
