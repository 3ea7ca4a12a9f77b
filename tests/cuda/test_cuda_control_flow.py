"""Control flow on CUDA (the simulator in CI): while with tensor arrays, IfElse branches, StaticRNN and
DynamicRNN (forward and gradients), and run_program's block, give what the CPU gives; their blocks run the
CUDA kernels."""

import numpy as np
import pytest

from pe_cli import fluid
from tests.layers.test_control_flow_cond_grad import IE_VALUES, ifelse_program
from tests.layers.test_control_flow_dynamic_rnn import LENGTHS, PARAMS as DPARAMS, VALUES as DVALUES, program
from tests.layers.test_control_flow_rnn import GRADS, PARAMS, VALUES, static_rnn_program
from tests.fluid.test_run_program import FETCH, X, _holding_run_program
from tests.layers.test_control_flow_while import while_program


def _run(place, main, startup, feed, fetch, params=None):
    exe = fluid.Executor(place)
    with fluid.scope_guard(fluid.core.Scope()):
        scope = fluid.global_scope()
        if startup is not None:
            exe.run(startup)
        for name, value in (params or {}).items():
            scope.var(name).get_tensor().set(value, fluid.CPUPlace())
        return exe.run(main, feed=feed, fetch_list=fetch)


PLACES = [fluid.CPUPlace(), fluid.CUDAPlace(0)]


def _same(cpu, cuda, rtol=1e-10):
    for a, b in zip(cpu, cuda):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=1e-10)


def test_while_with_arrays():
    main, startup, v = while_program()
    feed = {"x": np.arange(6, dtype="float32").reshape(2, 3)}
    fetch = [v["acc"], v["length"], v["third"], v["i"]]
    _same(*[_run(p, main, startup, feed, fetch) for p in PLACES])


@pytest.mark.parametrize("mask", [[0, 1, 0], [1, 1, 1]], ids=["mixed", "all_false"])
def test_ifelse_and_its_gradients(mask):
    main, out, _ = ifelse_program()
    feed = {"x": IE_VALUES["x"], "mask": np.array(mask, dtype="float64").reshape(-1, 1)}
    params = {n: IE_VALUES[n] for n in ("w", "v0")}
    fetch = [out, "x@GRAD", "w@GRAD", "v0@GRAD"]
    _same(*[_run(p, main, None, feed, fetch, params) for p in PLACES])


def test_static_rnn_and_its_gradients():
    main, _, hs, _ = static_rnn_program()
    feed = {"x": VALUES["x"], "h0": VALUES["h0"]}
    params = {n: VALUES[n] for n in PARAMS}
    _same(*[_run(p, main, None, feed, [hs] + GRADS, params) for p in PLACES])


def test_dynamic_rnn_and_its_gradients():
    main, out, _ = program()
    grads = [n + "@GRAD" for n in ["x", "h0", "s"] + list(DPARAMS)]
    results = []
    for place in PLACES:
        feed = {
            "x": fluid.create_lod_tensor(DVALUES["x"], [LENGTHS], fluid.CPUPlace()),
            "h0": DVALUES["h0"],
            "s": DVALUES["s"],
        }
        results.append(_run(place, main, None, feed, [out] + grads, {n: DVALUES[n] for n in DPARAMS}))
    _same(*results)


def test_kernels_get_device_arrays_where_the_host_made_the_value():
    """Tensor arrays stacked on the host and zero gradients filled in by the backward pass are
    numpy arrays; the kernel bound to a GPU receives them on the device (a real driver refuses a
    host array in a launch on pe's stream)."""
    from pe_cli.fluid import CUDAPlace
    from pe_cli.kernels.cuda import runtime

    seen = {}

    def kernel(ins, attrs):
        for name, value in ins.items():
            seen[name] = [runtime.is_device_array(v) for v in (value if isinstance(value, list) else [value])]
        return {}

    run = runtime.bind_kernel(kernel, CUDAPlace(0))
    with runtime.device(0):
        on_device = runtime.to_device(np.ones(2))
    run({"X": np.ones(3), "Xs": [np.zeros(2), on_device], "Y": on_device}, {})
    assert seen == {"X": [True], "Xs": [True, True], "Y": [True]}


def test_run_program_and_its_gradient():
    main, startup, out = _holding_run_program(fluid_seeds=False)
    _same(*[_run(p, main, startup, {"x": X}, [out.name] + FETCH) for p in PLACES], rtol=1e-6)
