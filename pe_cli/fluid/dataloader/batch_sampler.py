"""``paddle.fluid.dataloader.batch_sampler``: BatchSampler, the indices of each batch of a dataset."""

from ...data.dataset_loading import BatchSampler  # noqa: F401

__all__ = ["BatchSampler"]
