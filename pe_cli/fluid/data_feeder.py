"""``paddle.fluid.data_feeder`` (Paddle 2.6: ``paddle.base.data_feeder``): the feeder and the argument checks."""

from ..base.dtypes import convert_dtype  # noqa: F401
from ..data.feeder import DataFeeder  # noqa: F401
from ..layers.checks import check_dtype, check_type, check_variable_and_dtype  # noqa: F401

__all__ = ["DataFeeder"]
