"""``paddle.tensor.creation`` (Paddle's python/paddle/tensor/creation.py): the same objects as
``paddle.zeros_like``, ``paddle.full``, ... (pe_cli/paddle/tensor_create.py)."""

from ..tensor_create import *  # noqa: F401,F403
