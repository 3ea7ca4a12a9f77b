"""``paddle.distributed.checkpoint.load_state_dict``: reads the shards a sharded save wrote into this rank's
sharded tensors: refused in one line naming each function (pe has no sharded tensors)."""

import copy  # noqa: F401 -- a name of Paddle's module
import os  # noqa: F401 -- a name of Paddle's module
from dataclasses import dataclass
from typing import Tuple  # noqa: F401 -- a name of Paddle's module

from ....base.errors import refuse
from .metadata import LocalTensorIndex, LocalTensorMetadata  # noqa: F401
from .utils import WHY, compute_local_shape_and_global_offset, flatten_state_dict  # noqa: F401


@dataclass(frozen=True)
class ReadItem:
    """One read of a load: the shard's index, the rank reading it, its dtype, offsets and lengths."""

    local_tensor_index: LocalTensorIndex
    rank: int
    dtype: str
    cur_offset: Tuple[int]
    storage_offset: Tuple[int]
    lengths: Tuple[int]


refuse(
    globals(),
    "paddle.distributed.checkpoint.load_state_dict",
    "compute_overlap get_load_infos get_local_load_files get_rank_to_files get_read_items is_initialized "
    "load_state_dict not_overlap".split(),
    WHY,
)
