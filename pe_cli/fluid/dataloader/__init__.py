"""``paddle.fluid.dataloader`` (Fluid 1.8.5): the map-style Dataset and the BatchSampler of
``fluid.io.DataLoader(dataset, ...)`` (pe_cli/data/dataset_loading.py), each in its own submodule."""

from . import batch_sampler, dataset  # noqa: F401
from .batch_sampler import *  # noqa: F401,F403
from .dataset import *  # noqa: F401,F403

__all__ = dataset.__all__ + batch_sampler.__all__
