"""``paddle.tensor.creation`` (Paddle's python/paddle/tensor/creation.py): the same objects as
``paddle.zeros_like``, ``paddle.full``, ... (pe_cli/paddle/tensor_create.py; the random functions too, as
before they moved to tensor_random.py)."""

from ..tensor_create import *  # noqa: F401,F403
from ..tensor_random import *  # noqa: F401,F403
