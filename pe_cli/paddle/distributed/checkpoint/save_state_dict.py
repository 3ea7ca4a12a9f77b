"""``paddle.distributed.checkpoint.save_state_dict``: each rank's shards of a sharded state dict and the
metadata of them all: refused in one line naming each function (pe has no sharded tensors)."""

import os  # noqa: F401 -- a name of Paddle's module
from typing import List  # noqa: F401 -- a name of Paddle's module

from ....base.errors import refuse
from .metadata import LocalTensorIndex, LocalTensorMetadata, Metadata  # noqa: F401
from .utils import WHY, compute_local_shape_and_global_offset, flatten_state_dict  # noqa: F401

refuse(
    globals(),
    "paddle.distributed.checkpoint.save_state_dict",
    "check_file_name check_state_dict dedup_storage_metadata is_initialized merge_state_dict_metadata "
    "save_state_dict".split(),
    WHY,
)
