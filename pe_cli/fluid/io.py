"""``paddle.fluid.io``: checkpoints and inference models in pe's formats (docs say which), and
``fluid.io.batch`` (= ``paddle.batch``). Fluid's .pdparams/.pdopt and the feeding readers
(PyReader, DataLoader) are not in pe yet."""
from ..io import *  # noqa: F401,F403
from ..io import __all__ as _pe_all
from ..paddle.batch import batch
from .unsupported import unsupported

_MISSING = ["PyReader", "DataLoader", "save", "load", "load_program_state", "set_program_state",
            "get_program_parameter", "get_program_persistable_vars"]
for _name in _MISSING:
    globals()[_name] = unsupported(f"fluid.io.{_name}")

__all__ = list(_pe_all) + ["batch"] + _MISSING
