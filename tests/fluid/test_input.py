"""fluid.embedding (Fluid 1.8's paddle.fluid.input): ids of any shape, Out [*ids.shape, dim] by the
lookup_table_v2 op; the same table values and gradients as layers.embedding over ids [..., 1]."""

import numpy as np

from pe_cli import fluid


def _train_step(use_v2, ids):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        if use_v2:
            x = fluid.data("ids", [None, 3], "int64")
            emb = fluid.embedding(x, [10, 4], padding_idx=0, param_attr="table")
        else:
            x = fluid.data("ids", [None, 3, 1], "int64")
            emb = fluid.layers.embedding(x, [10, 4], padding_idx=0, param_attr="table")
        loss = fluid.layers.reduce_sum(fluid.layers.square(emb))
        fluid.optimizer.SGD(0.1).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        (out,) = exe.run(main, feed={"ids": ids if use_v2 else ids[..., None]}, fetch_list=[emb])
        return emb.shape, out, np.array(scope.find_var("table").get_tensor())


def test_fluid_embedding_keeps_the_ids_shape_and_trains_as_layers_embedding():
    ids = np.array([[1, 0, 2], [3, 3, 0]], np.int64)
    shape, out, table = _train_step(True, ids)
    shape1, out1, table1 = _train_step(False, ids)
    assert shape == (-1, 3, 4) and out.shape == (2, 3, 4) and shape1 == (-1, 3, 4)
    assert not out[ids == 0].any()  # padding_idx rows are zeros
    np.testing.assert_array_equal(out, out1)
    np.testing.assert_array_equal(table, table1)
