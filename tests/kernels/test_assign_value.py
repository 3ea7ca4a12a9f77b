"""assign_value's CPU kernel: a long constant is converted from its attribute list once and copied
each run (pe_cli/kernels/cpu/creation.py), with the values, dtype and shape the attributes say."""

import numpy as np

from pe_cli.kernels.cpu import creation


def _attrs(values, dtype="float32", shape=None):
    key = {"int64": "int64_values", "int32": "int32_values", "bool": "bool_values"}.get(dtype, "fp32_values")
    return {"dtype": dtype, "shape": shape or [len(values)], key: values}


def test_each_run_gets_its_own_array_of_the_values():
    values = [float(v) for v in np.linspace(-1, 1, 1000)]
    attrs = _attrs(values, shape=[10, 100])
    first = creation.assign_value({}, attrs)["Out"]
    first[:] = 7  # an op after it writes over its output
    again = creation.assign_value({}, attrs)["Out"]
    assert again is not first and again.dtype == np.float32 and again.shape == (10, 100)
    np.testing.assert_array_equal(again, np.asarray(values, np.float32).reshape(10, 100))


def test_new_attribute_values_are_read_anew():
    attrs = _attrs(list(range(500)), "int64")
    creation.assign_value({}, attrs)
    attrs["int64_values"] = list(range(500, 1000))
    np.testing.assert_array_equal(creation.assign_value({}, attrs)["Out"], np.arange(500, 1000))
    attrs["shape"] = [20, 25]
    assert creation.assign_value({}, attrs)["Out"].shape == (20, 25)


def test_short_and_long_constants_of_every_dtype():
    for dtype in ("float32", "int32", "int64", "bool"):
        for n in (3, 3000):
            values = [bool(i % 2) for i in range(n)] if dtype == "bool" else list(range(n))
            out = creation.assign_value({}, _attrs(values, dtype))["Out"]
            assert out.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(out, np.asarray(values, dtype))
