"""``paddle.tensor.random`` (Paddle's python/paddle/tensor/random.py): the random tensor functions,
the same objects as ``paddle.rand``, ``paddle.normal``, ... (pe_cli/paddle/tensor_random.py)."""

from ..tensor_random import bernoulli, multinomial, normal, rand, randint, randn, randperm, standard_normal, uniform  # noqa: F401
