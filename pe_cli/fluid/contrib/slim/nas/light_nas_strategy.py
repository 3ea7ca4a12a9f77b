"""``paddle.fluid.contrib.slim.nas.light_nas_strategy``: LightNASStrategy, the Compressor strategy of
slim's light architecture search (not in pe: one line)."""
from .controller_server import ControllerServer  # noqa: F401
from .search_agent import SearchAgent  # noqa: F401
from ....unsupported import SLIM, refuse

__all__ = ["LightNASStrategy"]
refuse(globals(), "paddle.fluid.contrib.slim.nas.light_nas_strategy", __all__, SLIM)
