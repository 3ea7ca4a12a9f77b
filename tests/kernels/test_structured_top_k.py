"""top_k, top_k_v2, arg_max and arg_min as structured kernels (pe_cli/shapes/indexing.py; out-kernels in
kernels/cpu/indexing.py and kernels/cpu/selecting.py; their op cases' sentinel buffers: test_structured_kernels.py):
a step decides the variant once per shape signature and gives the op kernel's bits; k beyond X's dim is refused
in one line on every run, a K tensor's too."""

import inspect

import numpy as np
import pytest

from pe_cli.executor.plan import Values, run_step
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import _step

rng = np.random.default_rng(43)


def test_a_top_k_step_decides_its_variant_once_per_shape_signature():
    """top_k's step: k = 2 over float rows 4k wider the numba loop, over int rows a partition, over narrow rows a
    sort; each signature's rule run once; the op kernel's bits."""
    step = _step("top_k", {"X": ["x"]}, {"Out": ["out"], "Indices": ["idx"]}, {"k": 2})
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, str(ins["X"].dtype), decided.variant))
        return decided

    inner.meta = counted
    kernel = registry.get("top_k").kernel("cpu")
    feeds = [rng.standard_normal((3, 40)).astype(np.float32) for _ in range(3)]
    feeds += [rng.integers(-3, 3, (3, 40))] * 2 + [rng.standard_normal((4, 5))] * 2
    for x in feeds:
        values = Values({"x": x})
        run_step(step, values)
        want = kernel({"X": x}, {"k": 2})
        assert values["out"].tobytes() == want["Out"].tobytes() and values["idx"].tobytes() == want["Indices"].tobytes()
    assert calls == [((3, 40), "float32", "rows"), ((3, 40), "int64", "partitioned"), ((4, 5), "float64", "sort")]
    for _ in range(2):
        with pytest.raises(Exception, match=r"failed: ValueError: k=2 is larger than the last dim of X \[3, 1\]$"):
            run_step(step, Values({"x": np.zeros((3, 1))}))


def test_arg_max_steps_give_the_kernels_bits_in_each_dtype():
    for attrs in ({"axis": 1}, {"axis": 0, "keepdims": True}, {"flatten": True}, {"axis": -1, "dtype": "float32"}):
        step = _step("arg_max", {"X": ["x"]}, {"Out": ["out"]}, attrs)
        kernel = registry.get("arg_max").kernel("cpu")
        for x in (rng.standard_normal((3, 4)), rng.integers(0, 3, (2, 5)).astype(np.int32)):
            values = Values({"x": x})
            run_step(step, values)
            want = kernel({"X": x}, dict(step.attrs))["Out"]
            assert values["out"].dtype == want.dtype and values["out"].tobytes() == want.tobytes()


def test_top_k_v2_refuses_a_k_tensor_beyond_the_axis_in_one_line():
    """A K tensor larger than X's dim along the axis: the one line (Paddle refuses it too), not numpy's error or
    fewer values than k."""
    kernel, attrs = registry.get("top_k_v2").kernel("cpu"), dict(registry.get("top_k_v2").default_attrs(), axis=0)
    for x in (rng.standard_normal((3, 5)), np.zeros((0, 5))):
        with pytest.raises(Exception, match=rf"^top_k_v2: k=4 must lie in \[0, {len(x)}\] \(X \[{len(x)}, 5\] along"):
            kernel({"X": x, "K": np.array([4], np.int32)}, dict(attrs))
