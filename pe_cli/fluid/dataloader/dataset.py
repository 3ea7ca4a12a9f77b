"""``paddle.fluid.dataloader.dataset``: Dataset, a map-style dataset (``__getitem__``, ``__len__``)."""

from ...data.dataset_loading import Dataset  # noqa: F401

__all__ = ["Dataset"]
