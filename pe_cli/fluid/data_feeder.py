"""``paddle.fluid.data_feeder``."""
from ..data.feeder import DataFeeder  # noqa: F401

__all__ = ["DataFeeder"]
