"""The CUDA kernels that are CPU kernels run on the host are declared by name: rows of their family
module's ``HOST_OPS`` (kernels/cuda/_host.py), which ``kernels.kernel_of`` wraps around the CPU kernel of
the same family and name. Each row serves an op the registry runs, and that CPU kernel exists."""

import importlib

import numpy as np

from pe_cli.kernels import kernel_of
from pe_cli.kernels.cuda import runtime as rt
from pe_cli.ops import registry


def test_every_host_ops_row_serves_an_op_and_wraps_a_cpu_kernel():
    defs = [registry.get(t) for t in registry.all_op_types()]
    served = {(d.kernel_module, d.kernel_name) for d in defs}
    bad, rows = [], 0
    for family in sorted({d.kernel_module for d in defs}):
        for name in getattr(importlib.import_module(f"pe_cli.kernels.cuda.{family}"), "HOST_OPS", {}):
            rows += 1
            if (family, name) not in served:
                bad.append(f"cuda/{family}.py HOST_OPS['{name}']: no op's kernel")
            elif kernel_of("cpu", family, name) is None:
                bad.append(f"cuda/{family}.py HOST_OPS['{name}']: no {name}() in cpu/{family}.py")
    assert bad == []
    assert rows > 0, "no HOST_OPS row found"  # (433 when written)


def test_a_host_op_runs_its_cpu_kernel_on_the_host():
    """complex's kernel on CUDA is the CPU's, its inputs copied over and its output copied back."""
    kernel = registry.get("complex").kernel("cuda")
    out = kernel({"X": rt.to_device(np.array([1.0, 2.0])), "Y": rt.to_device(np.array([3.0, -4.0]))}, {"axis": -1})
    assert rt.is_device_array(out["Out"])
    np.testing.assert_array_equal(rt.to_host(out["Out"]), np.array([1 + 3j, 2 - 4j]))
