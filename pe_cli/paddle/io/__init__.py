"""``paddle.io`` (Paddle 2.x): datasets (datasets.py), samplers (samplers.py) and the DataLoader
feeding a static program (loader.py, over fluid.io.DataLoader)."""

from .datasets import (
    ChainDataset,
    ComposeDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,  # noqa: F401
    Subset,
    TensorDataset,
    random_split,
)
from .loader import DataLoader, get_worker_info  # noqa: F401
from .samplers import (
    BatchSampler,
    DistributedBatchSampler,
    RandomSampler,
    Sampler,  # noqa: F401
    SequenceSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ComposeDataset",
    "ChainDataset",
    "ConcatDataset",
    "Subset",
    "random_split",
    "Sampler",
    "SequenceSampler",
    "RandomSampler",
    "WeightedRandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "DistributedBatchSampler",
    "DataLoader",
    "get_worker_info",
]
