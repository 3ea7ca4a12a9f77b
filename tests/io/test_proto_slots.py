"""ops/proto_slots.py's tables are what pe's ops declare beyond each release's op protos (the inventories
read from the wheels, tests/data), and a program pe writes holds an op's pe-only slots only where it uses them."""

import gzip
import json
from pathlib import Path

import pytest

from pe_cli import fluid
from pe_cli.ops.proto_slots import NOT_IN_FLUID18, NOT_IN_PADDLE26
from pe_cli.ops import registry

DATA = Path(__file__).parent.parent / "data"


def _inventory(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        ops = json.load(f)["ops"]
    return {t: {i[0] if isinstance(i, list) else i["name"] for i in o["inputs"]} for t, o in ops.items()}


@pytest.mark.parametrize(
    "table,inventory",
    [(NOT_IN_FLUID18, "fluid-1.8.5-ops.json"), (NOT_IN_PADDLE26, "paddle-2.6.2-ops.json.gz")],
    ids=["fluid18", "paddle26"],
)
def test_the_tables_are_the_slots_the_release_lacks(table, inventory):
    protos = _inventory(DATA / inventory)
    want = {}
    for op_type in registry.all_op_types():
        if op_type in protos:
            extra = sorted({s.name for s in registry.get(op_type).inputs} - protos[op_type])
            if extra:
                want[op_type] = tuple(extra)
    assert table == want


def test_a_written_reduction_holds_no_axis_tensor_slot_unless_it_uses_one(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3], "float32")
        y = fluid.layers.reduce_mean(x, dim=1)
        axis = fluid.layers.fill_constant([1], "int64", 1)
        z = fluid.layers.reduce_sum(x, dim=axis)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    fluid.io.save_inference_model(str(tmp_path / "m"), ["x"], [y, z], exe, main_program=main)
    program, _, _ = fluid.io.load_inference_model(str(tmp_path / "m"), exe)
    ops = {op.type: op for op in program.global_block().ops}
    assert "AxisTensor" not in ops["reduce_mean"].input_names
    assert ops["reduce_sum"].input("AxisTensor") == [axis.name]
