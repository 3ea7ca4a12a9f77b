"""``paddle.fluid.layer_helper``: LayerHelper, which programs use to append ops of their own
(``helper.append_op``, ``create_variable_for_type_inference``, ``create_parameter``); pe's layers use the same one."""
from ..layers.helper import LayerHelper  # noqa: F401

__all__ = ["LayerHelper"]
