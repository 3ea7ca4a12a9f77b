"""``paddle.fluid.dataset``: Fluid 1.5+'s file datasets for ``exe.train_from_dataset``, as pe's
(pe_cli/data/dataset.py)."""

from ..data.dataset import DatasetFactory, FileInstantDataset, InMemoryDataset, QueueDataset  # noqa: F401

__all__ = ["DatasetFactory", "InMemoryDataset", "QueueDataset", "FileInstantDataset"]
