"""``paddle.fluid.layers.device``: ``get_places``, the list of places a program may run on.
(``fluid.layers`` is pe_cli.layers itself; ``pe fluid`` maps this one submodule here.)"""

from ..base.dtypes import VarType
from ..framework import unique_name
from ..layers.helper import LayerHelper

__all__ = ["get_places"]


def get_places(device_count=None, device_type=None):
    """Fluid's deprecated layer: a PLACE_LIST variable, which its op fills with the places of
    ``device_type`` ('CPU' or 'CUDA'; None: those of the device running it), the first
    ``device_count`` of them (None: all)."""
    helper = LayerHelper("get_places")
    out = helper.create_variable(name=unique_name.generate(f"{helper.name}.out"), type=VarType.PLACE_LIST)
    attrs = {}
    if device_count is not None:
        attrs["device_count"] = int(device_count)
    if device_type is not None:
        attrs["device_type"] = str(device_type).upper()
    helper.append_op("get_places", {}, {"Out": [out]}, attrs)
    return out
