"""``paddle.fluid.io``: checkpoints and inference models in pe's formats (docs say which),
``save``/``load``/``load_program_state``/``set_program_state`` in Fluid 1.8's .pdparams/.pdopt layout,
and ``fluid.io.batch`` (= ``paddle.batch``). The feeding readers (PyReader, DataLoader) are not in pe
yet."""
from ..io import *  # noqa: F401,F403
from ..io import __all__ as _pe_all
from ..paddle.batch import batch
from .unsupported import unsupported

_MISSING = ["PyReader", "DataLoader"]
for _name in _MISSING:
    globals()[_name] = unsupported(f"fluid.io.{_name}")

__all__ = list(_pe_all) + ["batch"] + _MISSING
