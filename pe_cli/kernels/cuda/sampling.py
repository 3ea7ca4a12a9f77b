"""CUDA kernels of pe_cli/ops/sampling.py: their CPU twins on the host (kernels/cuda/_host.py: the same seeded
draws; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "bernoulli",
    "bernoulli_p",
    "exponential",
    "multinomial",
    "rrelu",
    "rrelu_grad",
    "dropout_nd",
    "dropout_nd_grad",
    "gumbel_softmax",
    "gumbel_softmax_grad",
    "uniform_random_inplace",
    "gaussian_inplace",
)
