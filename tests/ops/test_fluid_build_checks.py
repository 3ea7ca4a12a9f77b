"""pe's build-time checks are no stricter than Fluid 1.8.5's compile-time InferShape, which skips what only
the run knows: dims it compares only when known (its IsRuntime guards), the LoD (a declared lod_level is no
fact: a sequence op's kernel checks its input's LoD when it runs) and the dtypes (a program may declare an
index float64 and feed int64: the kernel checks the values' dtype). Each op case of tests/ops listed in
tests/data/fluid_build_checks.json built on the oracle with its inputs declared so (the recording names
the variants: ``batch``, dim 0 unknown and no LoD; ``dims``, every dim unknown and no LoD; ``nolod``, no
LoD; ``floatint``, int inputs declared float64): it must build on pe too. pe checks those at run time
(ops/define.py ``run_dtypes`` / ``run_lod``, kernels/run_checks.py) where Fluid's kernels do."""
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from pe_cli.framework import Program, program_guard
from pe_cli.framework.lod_tensor import LoDTensor
from tests.ops.test_ops import all_cases

RECORD = json.loads((Path(__file__).parent.parent / "data" / "fluid_build_checks.json").read_text())["variants"]
_CASES = {c.id: c for c in all_cases()}


def _declared(value, variant):
    """(shape, dtype, lod_level) a case's input is declared with under ``variant``."""
    lod = len(value.lod()) if isinstance(value, LoDTensor) and value.lod() else 0
    array = np.asarray(value)
    shape, dtype = list(array.shape), array.dtype.name
    if variant == "batch" and shape:
        shape[0], lod = -1, 0
    elif variant == "dims":
        shape, lod = [-1] * len(shape), 0
    elif variant == "nolod":
        lod = 0
    elif variant == "floatint" and dtype.startswith("int"):
        dtype = "float64"
    return shape, dtype, lod


def _build(case, variant):
    main = Program()
    with program_guard(main, Program()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        block = main.global_block()
        inputs = {}
        for slot, value in case.inputs.items():
            items = value if isinstance(value, list) else [value]
            inputs[slot] = []
            for k, item in enumerate(items):
                shape, dtype, lod = _declared(item, variant)
                inputs[slot].append(block.create_var(name=f"{slot}_{k}", shape=shape, dtype=dtype, lod_level=lod))
        outputs = {slot: [block.create_var(name=f"out_{slot}_{k}", dtype="float32")
                          for k in range((case.num_outputs or {}).get(slot, 1))] for slot in _out_slots(case)}
        block.append_op(type=case.op, inputs=inputs, outputs=outputs, attrs=dict(case.attrs))


def _out_slots(case):
    from op_test import _attrs_with_defaults
    return case.outputs or tuple(case.ref(case.inputs, _attrs_with_defaults(case)).keys())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("variant", sorted(RECORD))
def test_op_cases_build_where_fluid_builds_them(variant):
    refused = []
    for case_id in RECORD[variant]:
        try:
            _build(_CASES[case_id], variant)
        except Exception as e:      # noqa: BLE001 -- each refusal is listed
            refused.append(f"{case_id}: {type(e).__name__}: {str(e)[:160]}")
    assert not refused, f"{len(refused)} built on Fluid 1.8.5 but not on pe:\n" + "\n".join(refused)


def test_what_fluid_checks_at_run_time_is_checked_when_run():
    import pe_cli.fluid as fluid
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = fluid.data("x", [3, 2], "float32")
        index = fluid.data("index", [2], "float64")        # Fluid builds gather with it; its kernel refuses
        out = fluid.layers.gather(x, index)
    feed = {"x": np.ones((3, 2), "float32"), "index": np.array([0, 2], "float64")}
    with pytest.raises(fluid.core.EnforceNotMet, match="gather: Index holds float64 values; it takes int32 or int64"):
        fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[out])
