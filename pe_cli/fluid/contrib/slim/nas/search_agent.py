"""``paddle.fluid.contrib.slim.nas.search_agent``: SearchAgent of slim's light architecture search (not in pe: one line)."""
from ....unsupported import SLIM, refuse

__all__ = ["SearchAgent"]
refuse(globals(), "paddle.fluid.contrib.slim.nas.search_agent", __all__, SLIM)
