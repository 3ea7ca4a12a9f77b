"""``paddle.fluid.io``: checkpoints and inference models in pe's formats (docs say which),
``save``/``load``/``load_program_state``/``set_program_state`` in Fluid 1.8's .pdparams/.pdopt layout,
``fluid.io.batch`` (= ``paddle.batch``), and the feeding readers ``PyReader`` and
``DataLoader.from_generator`` (pe_cli/fluid/reader.py)."""
from ..io import *  # noqa: F401,F403
from ..io import __all__ as _pe_all
from ..data.batch import batch
from .reader import DataLoader, PyReader

__all__ = list(_pe_all) + ["batch", "PyReader", "DataLoader"]
