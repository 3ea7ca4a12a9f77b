"""``paddle.fluid.contrib.slim.nas.controller_server``: ControllerServer of slim's light architecture search (not in pe: one line)."""
from ....unsupported import SLIM, refuse

__all__ = ["ControllerServer"]
refuse(globals(), "paddle.fluid.contrib.slim.nas.controller_server", __all__, SLIM)
