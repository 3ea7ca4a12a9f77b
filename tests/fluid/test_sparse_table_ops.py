"""lookup_sparse_table (Fluid 1.8's auto-grown table of parameter-server mode), driven as Fluid's op test
drives it: one Operator run twice on a scope, the table W (SelectedRows) keeping the ids it gave rows."""

import numpy as np

import pe_cli.fluid as fluid
from pe_cli.fluid import core
from pe_cli.fluid.op import Operator


def _table(scope, size=6, width=2):
    w = scope.var("W").get_selected_rows()
    w.set_height(size)
    values = np.repeat(np.arange(size, dtype=np.float32)[:, None], width, axis=1)
    w.get_tensor().set(values, core.CPUPlace())
    return values


def _lookup(scope, ids, **attrs):
    scope.var("Ids").get_tensor().set(np.array(ids, np.int64), core.CPUPlace())
    scope.var("Out").get_tensor()
    Operator("lookup_sparse_table", W="W", Ids="Ids", Out="Out", **attrs).run(scope, core.CPUPlace())
    return np.array(scope.find_var("Out").get_tensor())


def test_new_ids_take_the_next_free_rows_and_keep_them():
    scope = fluid.Scope()
    values = _table(scope)
    np.testing.assert_array_equal(_lookup(scope, [7, 2, 7, 40]), values[[0, 1, 0, 2]])
    np.testing.assert_array_equal(_lookup(scope, [2, 9, 40]), values[[1, 3, 2]])
    assert scope.find_var("W").get_selected_rows().rows() == [7, 2, 40, 9]


def test_at_test_time_unknown_ids_read_zeros():
    scope = fluid.Scope()
    values = _table(scope)
    _lookup(scope, [5])
    np.testing.assert_array_equal(_lookup(scope, [5, 8], is_test=True), [values[0], [0.0, 0.0]])
