"""Ops whose services pe does not run (BoxPS, pslib, Fluid's gRPC parameter servers): a program holding them
builds with Fluid's attributes, goes through a ProgramDesc and back whole, and running it stops in one line
naming the op and what it needs. Also coalesce_tensor's buffer on the CPU, slices 4096-byte aligned."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError

# op type -> (inputs, outputs, attrs, what the error names)
SERVICE_OPS = {
    "pull_box_sparse": ({"Ids": ["ids"]}, {"Out": ["out"]}, {"size": 4}, "BoxPS"),
    "pull_sparse": ({"Ids": ["ids"], "W": ["w"]}, {"Out": ["out"]}, {"EmbeddingDim": 4, "TableId": 1}, "pslib"),
    "pull_sparse_v2": ({"Ids": ["ids"], "W": ["w"]}, {"Out": ["out"]}, {"EmbeddingDim": 4}, "pslib"),
    "push_dense": ({"Ids": ["ids"]}, {}, {"TableId": 2, "InputNames": ["w"]}, "pslib"),
    "distributed_lookup_table": (
        {"Ids": ["ids"], "W": ["w"]},
        {"Outputs": ["out"]},
        {"endpoints": ["127.0.0.1:6170"], "height_sections": [10]},
        "gRPC",
    ),
    "prefetch": ({"X": ["ids"]}, {"Out": ["out"]}, {"epmap": ["127.0.0.1:6170"]}, "gRPC"),
    "checkpoint_notify": ({}, {}, {"epmap": ["127.0.0.1:6170"], "dir": "/tmp/ck", "lookup_table": "w"}, "gRPC"),
    "recv_save": (
        {},
        {},
        {
            "file_path": "/tmp/w",
            "shape": [10, 4],
            "remote_varnames": ["w.block0"],
            "endpoints": ["127.0.0.1:6170"],
            "slice_varnames": ["w"],
            "slice_shapes": ["10,4"],
        },
        "gRPC",
    ),
    "fl_listen_and_serv": ({"X": ["w"]}, {}, {"endpoint": "127.0.0.1:6170"}, "gRPC"),
}


def _program(op_type):
    inputs, outputs, attrs, _ = SERVICE_OPS[op_type]
    prog = fluid.Program()
    block = prog.global_block()
    block.create_var(name="ids", shape=[3, 1], dtype="int64", persistable=True)
    block.create_var(name="w", shape=[10, 4], dtype="float32", persistable=True)
    for name in outputs.get("Out", []) + outputs.get("Outputs", []):
        block.create_var(name=name)
    block.append_op(type=op_type, inputs=inputs, outputs=outputs, attrs=attrs)
    return prog


@pytest.mark.parametrize("op_type", sorted(SERVICE_OPS))
def test_a_service_op_builds_round_trips_and_refuses_to_run_in_one_line(op_type):
    prog = fluid.Program.parse_from_string(_program(op_type).desc.serialize_to_string())
    op = prog.global_block().ops[0]
    assert op.type == op_type
    for name, value in SERVICE_OPS[op_type][2].items():
        assert op.attr(name) == value
    scope = fluid.Scope()
    scope.var("ids").get_tensor().set(np.array([[1], [2], [3]], np.int64), fluid.CPUPlace())
    scope.var("w").get_tensor().set(np.zeros((10, 4), np.float32), fluid.CPUPlace())
    with pytest.raises(PeError, match=f"op '{op_type}' .*{SERVICE_OPS[op_type][3]}") as err:
        fluid.Executor(fluid.CPUPlace()).run(prog, scope=scope)
    message = str(err.value)
    assert "\n" not in message and op_type in message and SERVICE_OPS[op_type][3] in message


def test_checkpoint_notify_without_servers_does_nothing(tmp_path):
    """With no servers (an empty epmap) Fluid's op asks no one to save: the program runs on to its other
    ops, writes no file and leaves the scope's variables as they were."""
    prog = fluid.Program()
    block = prog.global_block()
    block.create_var(name="w", shape=[2, 2], dtype="float32", persistable=True)
    block.create_var(name="out", shape=[2, 2], dtype="float32")
    block.append_op(
        type="checkpoint_notify",
        inputs={},
        outputs={},
        attrs={"epmap": [], "dir": str(tmp_path / "ck"), "lookup_table": "w"},
    )
    block.append_op(type="scale", inputs={"X": ["w"]}, outputs={"Out": ["out"]}, attrs={"scale": 2.0})
    scope = fluid.Scope()
    w = np.arange(4, dtype=np.float32).reshape(2, 2)
    scope.var("w").get_tensor().set(w, fluid.CPUPlace())
    (out,) = fluid.Executor(fluid.CPUPlace()).run(prog, scope=scope, fetch_list=["out"])
    np.testing.assert_array_equal(out, 2 * w)
    np.testing.assert_array_equal(np.array(scope.find_var("w").get_tensor()), w)
    assert list(tmp_path.iterdir()) == []


def test_coalesce_tensor_aligns_each_slice_to_4096_bytes_on_the_cpu():
    prog = fluid.Program()
    block = prog.global_block()
    for name, shape in (("a", [2, 3]), ("b", [1100])):
        block.create_var(name=name, shape=shape, dtype="float32", persistable=True)
    for name in ("a2", "b2", "fused"):
        block.create_var(name=name)
    block.append_op(
        type="coalesce_tensor",
        inputs={"Input": ["a", "b"]},
        outputs={"Output": ["a2", "b2"], "FusedOutput": ["fused"]},
        attrs={"copy_data": True, "dtype": 5},
    )
    a, b = np.ones((2, 3), np.float32), np.arange(1100, dtype=np.float32)
    (fused,) = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"a": a, "b": b}, fetch_list=["fused"], scope=fluid.Scope()
    )
    assert fused.shape == (1024 + 2048,)  # 6 floats -> 1024 (4096 bytes), 1100 -> 2048
    np.testing.assert_array_equal(fused[:6], a.reshape(-1))
    np.testing.assert_array_equal(fused[1024:2124], b)
