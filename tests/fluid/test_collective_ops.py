"""The ring collective ops Fluid registers (c_gen_nccl_id, c_comm_init, c_broadcast, c_allreduce_sum,
c_sync_*), in a program of one process: the set-up ops do nothing, the others give X as it is; a ring
of several trainers is refused with a clear error (pe all-reduces through CompiledProgram and fleet)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError


def _ring_program(nranks=1):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3], "float32")
        block = main.global_block()
        nccl_id = block.create_var(name="nccl_id", persistable=True)
        block.append_op("c_gen_nccl_id", {}, {"Out": [nccl_id]}, {"endpoint": "127.0.0.1:6170", "rank": 0})
        block.append_op("c_comm_init", {"X": [nccl_id]}, {}, {"nranks": nranks, "rank": 0, "ring_id": 0})
        y = fluid.layers.scale(x, 2.0)
        block.append_op("c_broadcast", {"X": [y]}, {"Out": [y]}, {"root": 0, "ring_id": 0})
        block.append_op("c_allreduce_sum", {"X": [y]}, {"Out": [y]}, {"ring_id": 0})
        block.append_op("c_sync_comm_stream", {"X": [y]}, {"Out": [y]}, {"ring_id": 0})
    return main, startup, y


@pytest.mark.parametrize("place", [fluid.CPUPlace()], ids=["cpu"])
def test_a_ring_of_one_process_gives_x_as_it_is(place):
    main, startup, y = _ring_program()
    exe = fluid.Executor(place)
    exe.run(startup)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    (out,) = exe.run(main, feed={"x": x}, fetch_list=[y])
    np.testing.assert_array_equal(out, 2 * x)


def test_a_ring_of_several_trainers_is_refused(monkeypatch):
    main, startup, y = _ring_program(nranks=2)
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.raises(PeError, match="one process only.*nranks=2"):
        exe.run(main, feed={"x": np.zeros((2, 3), "float32")}, fetch_list=[y])
    main, startup, y = _ring_program()
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    with pytest.raises(PeError, match="PADDLE_TRAINERS_NUM=2"):
        exe.run(main, feed={"x": np.zeros((2, 3), "float32")}, fetch_list=[y])
