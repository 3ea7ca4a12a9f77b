"""The gradient sum of a loop's tensor arrays (pe_cli/kernels/cpu/block_runs.add): slot by slot, an empty slot
zero, a slot without a LoD taking the other's, whatever the arrays' lengths."""

import numpy as np

from pe_cli.base.tensor_array import TensorArray
from pe_cli.kernels.cpu.block_runs import add


def _array(values, lods):
    out = TensorArray(values)
    out.lods = list(lods)
    return out


def test_arrays_add_slot_by_slot_an_empty_slot_being_zero():
    one, two, three = (np.full((2, 3), v, np.float32) for v in (1.0, 2.0, 3.0))
    a = _array([one, None, two, None], [[[0, 2]], None, None, None])
    b = _array([three, two, None, None, one, None], [None, [[0, 1, 2]], [[0, 2]], None, [[0, 2]], None])
    got = add(a, b)
    assert type(got) is TensorArray and len(got) == 6
    np.testing.assert_array_equal(got[0], one + three)
    assert got[1] is two and got[2] is two and got[3] is None and got[4] is one and got[5] is None
    assert got.lods == [[[0, 2]], [[0, 1, 2]], [[0, 2]], None, [[0, 2]], None]
    assert len(a) == 4 and a[0] is one and a.lods[1] is None  # (the operands are left as they were)


def test_a_loop_s_iteration_gradient_fills_one_slot_of_a_longer_sum():
    g = np.ones((4, 8), np.float32)
    total = None
    for t in reversed(range(200)):  # (as run_backward adds them: the last iteration first, arrays as long as t + 1)
        grad = _array([None] * t + [g * t], [None] * t + [[[0, 4]]])
        total = add(total, grad, np.add)
    assert len(total) == 200 and all(total[t][0, 0] == t for t in range(200))
    assert total.lods == [[[0, 4]]] * 200


def test_the_device_s_plus_is_what_adds():
    seen = []
    a, b = _array([1.0, None], [None, None]), _array([2.0, 5.0], [None, None])
    assert list(add(a, b, lambda x, y: seen.append((x, y)) or x * 10 + y)) == [12.0, 5.0]
    assert seen == [(1.0, 2.0)]
    assert add(None, b) is b and add(a, None) is a
