"""``paddle.distributed.checkpoint.utils``: helpers of the sharded save and load. ``flatten_state_dict`` is
Paddle 2.6.2's (it returns the state dict as given); the shard arithmetic, which reads a tensor's
distributed attributes of auto-parallel, refuses in one line naming itself."""

import copy  # noqa: F401 -- a name of Paddle's module
from typing import List, Tuple, Union  # noqa: F401 -- names of Paddle's module

import numpy as np  # noqa: F401 -- a name of Paddle's module

from ....base.errors import refuse

WHY = (
    "reads the distributed attributes of auto-parallel's sharded tensors, which pe does not have "
    "(pe's distributed runs hold whole parameters per rank; save them with paddle.static.save)"
)


def flatten_state_dict(state_dict):
    """The state dict as given (what Paddle 2.6.2's does)."""
    return state_dict


refuse(
    globals(),
    "paddle.distributed.checkpoint.utils",
    ["compute_local_shape_and_global_offset", "get_coordinator"],
    WHY,
)
