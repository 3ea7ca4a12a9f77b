"""fluid.core's value objects as Paddle's unittests drive them: LoDTensor's _set_dims/_alloc_*,
_mutable_data and slicing, a standalone core.SelectedRows, Scope._remove_from_pool, and the
registry's attribute defaults (core.get_op_attrs_default_value)."""

import numpy as np
import pytest

from pe_cli.fluid import core


def test_tensor_alloc_and_slices():
    tensor = core.Scope().var("t").get_tensor()
    tensor._set_dims([4, 3])
    tensor._alloc_int(core.CPUPlace())
    array = np.array(tensor)
    assert array.shape == (4, 3) and array.dtype == np.int32
    tensor._alloc_float(core.CPUPlace())
    assert np.array(tensor).dtype == np.float32
    values = np.arange(27, dtype="float32").reshape(3, 3, 3)
    tensor.set(values, core.CPUPlace())
    np.testing.assert_array_equal(np.array(tensor[2::-2][0]), values[2::-2][0])
    np.testing.assert_array_equal(np.array(tensor[0::1, 0::-1, 2:]), values[0::1, 0::-1, 2:])
    assert isinstance(tensor._mutable_data(core.CPUPlace(), core.VarDesc.VarType.FP64), int)
    assert np.array(tensor).dtype == np.float64 and np.array(tensor).shape == (3, 3, 3)


def test_set_float_element_writes_through_a_non_contiguous_array():
    tensor = core.LoDTensor()
    tensor.set(np.zeros((3, 4), "float32"))
    tensor._array = tensor._array.T  # a view that reshape(-1) would copy
    tensor._set_float_element(1, 5.0)
    assert tensor._get_float_element(1) == 5.0


def test_standalone_selected_rows():
    rows = core.SelectedRows([0, 4, 7], 10)
    values = np.ones((3, 2), "float32")
    values[2, 1] = 4.0
    rows.get_tensor().set(values, core.CPUPlace())
    assert rows.rows() == [0, 4, 7] and rows.height() == 10
    assert rows.get_tensor()._get_float_element(5) == 4.0


def test_scope_remove_from_pool_once():
    scope = core.Scope()
    scope.var("x")
    scope._remove_from_pool()
    assert scope.find_var("x") is None
    with pytest.raises(core.EnforceNotMet, match="Deleting a nonexistent scope"):
        scope._remove_from_pool()
    with pytest.raises(core.EnforceNotMet, match="Deleting a nonexistent scope is not allowed"):
        core.Scope().new_scope()._remove_from_pool()  # a kid scope was never in the pool


def test_op_attrs_default_value():
    defaults = core.get_op_attrs_default_value(b"fill_constant")
    assert defaults["value"] == 0.0 and "shape" in defaults
    assert core.get_op_attrs_default_value("no_such_op") == {}
