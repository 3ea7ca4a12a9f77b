"""The results of the control-flow ops for tools/op_case_bytes.py's ``control_flow`` family: the tensor-array,
branch-picking and mask ops called through their CPU kernels (``OpDef.kernel``) and executor steps
(``OpDef.step_kernel``) on dtypes, empty and 0-D values, LoDs, each attribute's forms and the refusals (beside each
output's bytes whether it is an input itself, and the LoD a kernel hands back: host_case_bytes' record); and the
block ops (while, conditional_block, recurrent, pylayer, their gradients, with the arrays, select_input/output and
IfElse's split/merge they run among) through the programs of tests/layers and tests/paddle that build them: each
fetched value, forward and gradients, on each branch."""

import os
import sys

import numpy as np

from host_case_bytes import _run

HERE = os.path.dirname(os.path.abspath(__file__))


def _lod_ctx(lod=None, **kw):
    from pe_cli.kernels.context import KernelContext

    return lambda: KernelContext(lod=dict(lod or {}), **kw)


def _arrays(results, record):
    from pe_cli.base.tensor_array import TensorArray

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(4, dtype=np.float64).reshape(2, 2)
    i = lambda k, dt=np.int64: np.array([k], dt)  # noqa: E731
    _run(results, record, "create_array", "plain", {}, {})
    _run(results, record, "create_array", "f64", {}, {"dtype": "float64"})
    for dt in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        x = np.arange(6).reshape(2, 3).astype(dt)
        _run(results, record, "write_to_array", f"new_{np.dtype(dt).name}", {"X": x, "I": i(0)}, ctx=_lod_ctx())
    held = TensorArray([a, None], [[[0, 1, 2]], None])
    for k in (0, 1, 3):
        _run(
            results,
            record,
            "write_to_array",
            f"held_{k}",
            {"X": b, "I": i(k, np.int32), "Out": held},
            ctx=_lod_ctx({"X": [[0, 2]]}),
        )
    _run(results, record, "write_to_array", "plain_list", {"X": b, "I": i(1), "Out": [a]}, ctx=_lod_ctx())
    _run(results, record, "write_to_array", "negative", {"X": b, "I": i(-1)}, ctx=_lod_ctx())
    _run(results, record, "write_to_array", "two_index", {"X": b, "I": np.array([0, 1])}, ctx=_lod_ctx())
    _run(results, record, "write_to_array", "empty_x", {"X": np.zeros((0, 3), np.float32), "I": i(0)}, ctx=_lod_ctx())
    full = TensorArray([a, None, b], [[[0, 1, 2]], None, None])
    names = {"X": ("arr",)}
    for k in (0, 1, 2, 5):
        _run(results, record, "read_from_array", f"read_{k}", {"X": full, "I": i(k)}, ctx=_lod_ctx(input_names=names))
        _run(
            results,
            record,
            "read_from_array",
            f"read_xw_{k}",
            {"X": full, "I": i(k), "X_W": b.astype(np.float32)},
            ctx=_lod_ctx({"X_W": [[0, 1, 2]]}, input_names=names),
        )
    _run(results, record, "read_from_array", "plain_list", {"X": [a, b], "I": i(1, np.int32)}, ctx=_lod_ctx())
    _run(results, record, "read_from_array", "unnamed", {"X": [a], "I": i(4)}, ctx=_lod_ctx())
    for k in (0, 1, 4):
        _run(results, record, "array_write_grad", f"k{k}", {"X": b, "I": i(k), "Out@GRAD": [a, None, b]})
        _run(results, record, "array_read_grad", f"k{k}", {"Array": [a, b, a, b, a], "I": i(k), "Out@GRAD": b})
    for arr in ([], [a], [a, None, b], TensorArray([a, b])):
        _run(results, record, "lod_array_length", f"n{len(arr)}", {"X": arr})
    for use_stack in (False, True):
        for axis in (0, 1, -1):
            xs = [a, a * 2, a + 1]
            at = {"axis": axis, "use_stack": use_stack}
            _run(results, record, "tensor_array_to_tensor", f"s{use_stack}_a{axis}", {"X": xs}, at)
            og = np.stack(xs, axis) if use_stack else np.concatenate(xs, axis)
            _run(
                results,
                record,
                "tensor_array_to_tensor_grad",
                f"s{use_stack}_a{axis}",
                {"X": xs, "Out@GRAD": og * 3},
                at,
            )
        _run(results, record, "tensor_array_to_tensor", f"s{use_stack}_ragged", {"X": [a, b]}, {"use_stack": use_stack})
        _run(
            results,
            record,
            "tensor_array_to_tensor",
            f"s{use_stack}_unfilled",
            {"X": [a, None]},
            {"use_stack": use_stack},
        )
        _run(
            results,
            record,
            "tensor_array_to_tensor",
            f"s{use_stack}_i64",
            {"X": [np.arange(3), np.arange(3) * 2]},
            {"use_stack": use_stack},
        )
    _run(
        results, record, "tensor_array_to_tensor", "ragged_axis1", {"X": [a, np.ones((2, 5), np.float32)]}, {"axis": 1}
    )


def _branches(results, record):
    from pe_cli.kernels.context import KernelContext

    x = np.arange(12, dtype=np.float64).reshape(6, 2)
    for dt in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        for shape in ((), (0,), (3, 0), (2, 3)):
            v = np.ones(shape, dt)
            for zd in (False, True):
                _run(
                    results,
                    record,
                    "is_empty",
                    f"{np.dtype(dt).name}_{shape}_{zd}",
                    {"X": v},
                    ctx=lambda zd=zd: KernelContext(zero_dim=zd),
                )
    _run(results, record, "is_empty", "fortran", {"X": np.asfortranarray(x)})
    masks = {
        "mixed": np.array([[True], [False], [True]]),
        "all_true": np.ones((3, 1), bool),
        "all_false": np.zeros((3, 1), bool),
        "int_mask": np.array([[1], [0], [0]], np.int32),
    }
    lods = {"none": None, "lod1": [[0, 2, 3, 6]], "lod2": [[0, 1, 2, 3], [0, 2, 3, 6]]}
    for lname, lod in lods.items():
        for level in (0, 1):
            for mname, mask in masks.items():
                key = f"{lname}_l{level}_{mname}"
                ctx = _lod_ctx({"X": lod} if lod else {})
                _run(results, record, "split_lod_tensor", key, {"X": x, "Mask": mask}, {"level": level}, ctx=ctx)
    for mname, mask in masks.items():
        m = np.asarray(mask).reshape(-1).astype(bool)
        t, f = x[: m.sum()], x[: len(m) - m.sum()] * -1
        for op in ("merge_lod_tensor", "merge_lod_tensor_infer"):
            _run(
                results,
                record,
                op,
                f"rows_{mname}",
                {"X": x, "Mask": mask, "InTrue": t, "InFalse": f.astype(np.float32)},
                ctx=_lod_ctx(),
            )
            tl = [[0] + list(np.cumsum([2] * int(m.sum())))]
            fl = [[0] + list(np.cumsum([1] * int(len(m) - m.sum())))]
            tt = np.ones((tl[0][-1], 2)) * 5
            ff = np.ones((fl[0][-1], 2)) * 7
            _run(
                results,
                record,
                op,
                f"lod_{mname}",
                {"X": x, "Mask": mask, "InTrue": tt, "InFalse": ff},
                ctx=_lod_ctx({"InTrue": tl, "InFalse": fl}),
            )
    _run(
        results,
        record,
        "merge_lod_tensor",
        "empty_true_placeholder",
        {"Mask": np.zeros((2, 1), bool), "InTrue": np.zeros((0, 1)), "InFalse": x[:2]},
        ctx=_lod_ctx(),
    )
    _run(
        results,
        record,
        "merge_lod_tensor",
        "mismatch",
        {"Mask": np.ones((2, 1), bool), "InTrue": x[:3], "InFalse": x[:0]},
        ctx=_lod_ctx(),
    )
    _run(results, record, "split_lod_tensor", "mismatch", {"X": x, "Mask": np.ones((2, 1), bool)}, ctx=_lod_ctx())
    for dtype in ("AUTO", "CPU", "CUDA"):
        for count in (0, 1, 3):
            _run(results, record, "get_places", f"{dtype}_{count}", {}, {"device_type": dtype, "device_count": count})
    a, b = np.arange(4, dtype=np.float32), np.ones((2, 2), np.int64)
    for k in (0, 1, 2, -1):
        m = np.array([k], np.int32)
        _run(results, record, "select_input", f"k{k}", {"X": [a, b], "Mask": m})
        _run(results, record, "select_input", f"none_k{k}", {"X": [None, b], "Mask": m})
        _run(
            results,
            record,
            "select_output",
            f"k{k}",
            {"X": a, "Mask": m},
            ctx=lambda: KernelContext(output_counts={"Out": 2}),
        )
        _run(results, record, "select_input_grad", f"k{k}", {"X": [a, None, b], "Mask": m, "Out@GRAD": a * 2})
        _run(results, record, "select_output_grad", f"k{k}", {"Mask": m, "Out@GRAD": [a, a * 3]})
    _run(results, record, "select_input", "mask_2d", {"X": [a, b], "Mask": np.array([[1]], np.int32)})


def _programs(results, record):
    sys.path[:0] = [
        os.path.join(HERE, "..", "tests"),
        os.path.join(HERE, "..", "tests", "layers"),
        os.path.join(HERE, "..", "tests", "paddle"),
    ]
    import test_control_flow_cond_grad as cg
    import test_control_flow_dynamic_rnn as dr
    import test_control_flow_rnn as sr
    import test_control_flow_while as wh
    import test_static_pylayer as pl

    def fetched(values):
        return {f"out{i}": np.asarray(v) for i, v in enumerate(values)}

    main, loss = cg.cond_program()
    for flag in (0.0, 1.0):
        record(results, f"prog|cond|{flag}", lambda: fetched(cg._run(main, [loss, "x@GRAD", "w@GRAD", "v@GRAD"], flag)))
    main, out, loss = cg.ifelse_program()
    for mask in ([0, 1, 0], [0, 0, 0], [1, 1, 1]):
        record(
            results,
            f"prog|ifelse|{mask}",
            lambda: fetched(cg._run_ie(main, [out, loss, "x@GRAD", "w@GRAD", "v0@GRAD"], mask)),
        )
    for rev in (False, True):
        main, _, hs, loss = sr.static_rnn_program(rev)
        fetch = [hs, loss] + [n + "@GRAD" for n in ("x", "h0", "wx", "wh", "b")]
        record(results, f"prog|static_rnn|{rev}", lambda: fetched(sr._run(main, fetch)))
    for boot in (True, False):
        main, out, loss = dr.program(boot)
        fetch = [out, loss] + [n + "@GRAD" for n in ("x", "s", "wx", "wh", "ws", "b")] + (["h0@GRAD"] if boot else [])
        record(results, f"prog|dynamic_rnn|{boot}", lambda: fetched(dr._run(main, fetch)))
    for n in (0, 1, 5):
        main, startup, v = wh.while_program(n)
        x = np.arange(6, dtype="float32").reshape(2, 3)
        want = [v["acc"], v["length"], v["i"]] + ([v["third"]] if n > 2 else [])
        record(results, f"prog|while|{n}", lambda: fetched(wh._run(main, startup, {"x": x}, want)))
    for name in ("test_blocks_built_by_hand", "test_static_pylayer_functions"):
        captured = {}
        real = pl.run

        def run(main, start, fetch, real=real, captured=captured):
            captured["v"] = real(main, start, fetch)
            return captured["v"]

        def go(name=name, run=run, captured=captured, real=real):
            pl.run = run
            try:
                getattr(pl, name)()
            finally:
                pl.run = real
            return fetched(captured["v"])

        record(results, f"prog|pylayer|{name}", go)
    for test in (
        "test_cond_picks_a_branch",
        "test_case_and_switch_case_nest_branches",
        "test_switch_piecewise_decay_matches_the_schedule",
        "test_a_switch_without_default_keeps_a_persistable_value_when_no_case_holds",
        "test_tensor_arrays_keep_each_items_lod_through_a_loop",
    ):
        record(results, f"prog|while_tests|{test}", lambda test=test: (getattr(wh, test)(), {"passed": np.array(1)})[1])


def control_flow(results, record, direct=None):
    _arrays(results, record)
    _branches(results, record)
    _programs(results, record)
