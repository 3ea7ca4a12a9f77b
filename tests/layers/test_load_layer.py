"""fluid.layers.load (layers.io.load) as Fluid 1.8 users call it: a variable read, when the program runs,
from a file that fluid.io.save_vars (Fluid's save op format) wrote; its LoD; load_as_fp16; and one-line
errors for a missing or truncated file."""

import os

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.base.lod_tensor_file import write_lod_tensor
from pe_cli.layers import io as layers_io


def _run(path, dtype="float32", **kw):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        out = main.global_block().create_var(name="loaded", dtype=dtype, persistable=True)
        fluid.layers.load(out, str(path), **kw)
    return fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[out], scope=fluid.Scope(), return_numpy=False)[0]


def test_load_reads_what_save_vars_wrote_and_pes_earlier_npy(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        w = fluid.layers.create_parameter(
            [2, 3],
            "float32",
            name="w",
            default_initializer=fluid.initializer.NumpyArrayInitializer(np.arange(6, dtype=np.float32).reshape(2, 3)),
        )
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with fluid.scope_guard(scope):
        fluid.io.save_vars(exe, str(tmp_path), main, vars=[w])
    got = _run(tmp_path / "w")
    np.testing.assert_array_equal(np.asarray(got), np.arange(6).reshape(2, 3))
    half = _run(tmp_path / "w", load_as_fp16=True)
    assert np.asarray(half).dtype == np.float16
    assert fluid.layers.io.load is fluid.layers.load is layers_io.load
    assert os.listdir(tmp_path) == ["w"]  # Fluid's file, named as the variable
    np.save(tmp_path / "w.npy", np.full((2, 2), 7, np.float64))  # pe's earlier format, saved later
    later = os.stat(tmp_path / "w").st_mtime_ns + 10**9
    os.utime(tmp_path / "w.npy", ns=(later, later))
    np.testing.assert_array_equal(np.asarray(_run(tmp_path / "w", dtype="float64")), np.full((2, 2), 7))


def test_load_keeps_the_lod_and_refuses_bad_files(tmp_path):
    (tmp_path / "seq").write_bytes(write_lod_tensor(np.arange(5, dtype=np.int64).reshape(5, 1), [[0, 2, 5]]))
    got = _run(tmp_path / "seq", dtype="int64")
    assert got.lod() == [[0, 2, 5]] and np.asarray(got).reshape(-1).tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(PeError, match="cannot open"):
        _run(tmp_path / "missing")
    (tmp_path / "cut").write_bytes(write_lod_tensor(np.ones((4, 4), np.float32))[:-5])
    with pytest.raises(PeError, match="truncated"):
        _run(tmp_path / "cut")


def test_load_seek_reads_part_of_the_tensor(tmp_path):
    """Fluid's load op with seek and shape (a table's rows): the shape's values from value `seek` on (the
    1.8.5 oracle gives [[5, 6, 7], [8, 9, 10]] for this file)."""
    (tmp_path / "t").write_bytes(write_lod_tensor(np.arange(12, dtype=np.float32).reshape(3, 4)))
    main = fluid.Program()
    out = main.global_block().create_var(name="part", dtype="float32", persistable=True)
    main.global_block().append_op(
        "load", {}, {"Out": [out]}, {"file_path": str(tmp_path / "t"), "seek": 5, "shape": [2, 3]}
    )
    got = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[out], scope=fluid.Scope())[0]
    np.testing.assert_array_equal(got, [[5, 6, 7], [8, 9, 10]])
    main.global_block().ops[0].attrs["seek"] = 8
    with pytest.raises(PeError, match="seek=8 with shape=\\[2, 3\\]"):
        fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[out], scope=fluid.Scope())
