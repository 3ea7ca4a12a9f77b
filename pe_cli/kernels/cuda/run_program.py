"""CUDA kernels of run_program and run_program_grad: the CPU module's, whose BlockRunner's steps are
this device's kernels; zeros for a gradient the block did not write are made on the device."""

from ._host import as_is, with_args
from ._launch import zeros_like

HOST_OPS = {"run_program": as_is, "run_program_grad": with_args(zeros_like)}
