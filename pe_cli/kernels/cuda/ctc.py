"""CUDA kernels of ops/ctc.py: the CPU's, both on the host (kernels/cuda/_host.py): ctc_align's output size
depends on the ids, as sequence_erase's does; warpctc's recursions run there (the loss and its gradient wrt
the logits come back together, as warp-ctc computes them) and the results are copied over."""

from ._host import host_ops

HOST_OPS = host_ops("ctc_align", "warpctc", "warpctc_grad")
