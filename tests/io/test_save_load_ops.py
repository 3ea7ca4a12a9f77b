"""Fluid's ops that move tensors through files and the executor's feed and fetch holders, in programs
that hold them (as Fluid's save_vars / load_vars programs and a ``__model__`` do): save (with the LoD;
directories made; overwrite), save_combine (to a file and to memory), load (with seek and shape),
load_combine (which must read its file whole), and feed / fetch, whose names the run's feeds and
fetch list must match as Fluid checks them."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.kernels.context import KernelContext
from pe_cli.base.errors import PeError
from pe_cli.base.lod_tensor_file import read_lod_tensors, write_lod_tensor

EXE = fluid.Executor(fluid.CPUPlace())


def _program():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [None, 3], lod_level=1)
        y = fluid.layers.scale(x, 2.0)
    return main, main.global_block(), x, y


def test_save_and_save_combine_write_fluids_files_that_the_load_ops_read(tmp_path):
    main, block, x, y = _program()
    block.append_op(type="save", inputs={"X": [y]}, outputs={}, attrs={"file_path": str(tmp_path / "a" / "y")})
    block.append_op(type="save_combine", inputs={"X": [x, y]}, outputs={}, attrs={"file_path": str(tmp_path / "xy")})
    value = np.arange(12, dtype="float32").reshape(4, 3)
    EXE.run(main, feed={"x": fluid.create_lod_tensor(value, [[1, 3]], fluid.CPUPlace())}, scope=fluid.Scope())
    ((saved, lod),) = read_lod_tensors((tmp_path / "a" / "y").read_bytes(), "y")
    assert lod == [[0, 1, 4]] and (saved == 2 * value).all()
    assert (tmp_path / "xy").read_bytes() == write_lod_tensor(value, [[0, 1, 4]]) + write_lod_tensor(
        2 * value, [[0, 1, 4]]
    )

    load = fluid.Program()
    lb = load.global_block()
    a, b, part = (
        lb.create_var(name=n, dtype="float32", shape=s) for n, s in (("a", [4, 3]), ("b", [4, 3]), ("p", [2, 3]))
    )
    lb.append_op(type="load_combine", inputs={}, outputs={"Out": [a, b]}, attrs={"file_path": str(tmp_path / "xy")})
    lb.append_op(
        type="load",
        inputs={},
        outputs={"Out": [part]},
        attrs={"file_path": str(tmp_path / "a" / "y"), "seek": 3, "shape": [2, 3]},
    )
    got = EXE.run(load, fetch_list=[a, b, part], scope=fluid.Scope(), return_numpy=False)
    assert (np.array(got[0]) == value).all() and got[0].lod() == [[0, 1, 4]]
    assert (np.array(got[2]) == 2 * value.reshape(-1)[3:9].reshape(2, 3)).all()
    partial = fluid.Program()
    partial.global_block().append_op(
        type="load_combine",
        inputs={},
        outputs={"Out": [partial.global_block().create_var(name="a", dtype="float32")]},
        attrs={"file_path": str(tmp_path / "xy")},
    )
    with pytest.raises(PeError, match="bytes follow the 1 tensors"):  # as Fluid: no partial load
        EXE.run(partial, scope=fluid.Scope())


def test_save_refuses_to_overwrite_when_told_and_saves_to_memory(tmp_path):
    main, block, x, y = _program()
    block.append_op(
        type="save", inputs={"X": [y]}, outputs={}, attrs={"file_path": str(tmp_path / "y"), "overwrite": False}
    )
    raw = block.create_var(name="raw", type=fluid.core.VarDesc.VarType.RAW)
    block.append_op(
        type="save_combine", inputs={"X": [y]}, outputs={"Y": [raw]}, attrs={"file_path": "", "save_to_memory": True}
    )
    feed = {"x": np.ones((2, 3), "float32")}
    (memory,) = EXE.run(main, feed=feed, fetch_list=[raw], scope=fluid.Scope())
    assert memory.tobytes() == (tmp_path / "y").read_bytes() == write_lod_tensor(np.full((2, 3), 2, "float32"))
    with pytest.raises(PeError, match="exists!, cannot save to it when overwrite is set to false"):
        EXE.run(main, feed=feed, scope=fluid.Scope())


def test_a_program_with_feed_and_fetch_ops_runs_as_fluids_executor_runs_it():
    main, block, x, y = _program()
    feed = {"x": np.ones((2, 3), "float32")}
    EXE.run(main, feed=feed, fetch_list=[y], scope=fluid.Scope())  # (run before it held them: no stale answer)
    holder = block.create_var(name="feed", type=fluid.core.VarDesc.VarType.FEED_MINIBATCH, persistable=True)
    out = block.create_var(name="fetch", type=fluid.core.VarDesc.VarType.FETCH_LIST, persistable=True)
    block._prepend_op(type="feed", inputs={"X": [holder]}, outputs={"Out": [x]}, attrs={"col": 0})
    block.append_op(type="fetch", inputs={"X": [y]}, outputs={"Out": [out]}, attrs={"col": 0})
    (got,) = EXE.run(main, feed=feed, fetch_list=[y], scope=fluid.Scope())
    assert (got == 2).all()
    with pytest.raises(PeError, match=f"'fetch_targets' does not have {y.name} variable"):
        EXE.run(main, feed=feed, fetch_list=[], scope=fluid.Scope())
    with pytest.raises(PeError, match="'feed_targets' does not have x variable"):
        EXE.run(main, feed={}, fetch_list=[y], scope=fluid.Scope())
    with pytest.raises(PeError, match="Fetch operators in program desc do not match 'fetch_targets'"):
        EXE.run(main, feed=feed, fetch_list=[y, x], scope=fluid.Scope())


def test_feed_and_fetch_kernels_read_and_write_the_holders():
    from pe_cli.base.tensor_array import TensorArray
    from pe_cli.kernels.cpu import feed_fetch

    holder = TensorArray([np.zeros(2), np.ones(3)], [None, [[0, 1, 3]]])
    ctx = KernelContext()
    out = feed_fetch.feed({"X": holder}, {"col": 1}, ctx)
    assert (out["Out"] == 1).all() and ctx.out_lod == {"Out": [[0, 1, 3]]}
    assert list(feed_fetch.fetch({"X": 5}, {"col": 2})["Out"]) == [None, None, 5]
    with pytest.raises(PeError, match="no value at col 4"):
        feed_fetch.feed({"X": holder}, {"col": 4}, KernelContext())
