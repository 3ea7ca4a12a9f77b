"""``paddle.fluid.contrib.slim.nas.search_space``: SearchSpace of slim's light architecture search (not in pe: one line)."""
from ....unsupported import SLIM, refuse

__all__ = ["SearchSpace"]
refuse(globals(), "paddle.fluid.contrib.slim.nas.search_space", __all__, SLIM)
