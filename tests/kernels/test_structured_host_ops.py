"""Structured kernels of the ops that touch the scope, files or Python rather than compute (issue 95): the
dependency ops pass X on as it is (``Meta.aliases``), transfer_dtype casts into the buffer it is handed,
coalesce_tensor's Output are views of its FusedOutput, and the ops whose out-kernels print, stop the run, read or
write files or the run's holders (print, assert, save, save_combine, load, load_combine, feed, fetch) say so
(``Structured.python``): a planned step runs them between its segments, never inside one."""

import io
import os
from contextlib import redirect_stdout

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.base.places import CPUPlace
from pe_cli.base.selected_rows import SelectedRows
from pe_cli.base.tensor_array import TensorArray
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.executor.step_plan import DevicePlan, segments_of
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.structured import allocate
from pe_cli.ops import registry
from pe_cli.shapes.tensor_storage import coalesce_layout
from tests.kernels.test_structured_kernels import CASES, CONVERTED

HOST_CASES = CASES["dependency ops"] + CASES["tensor storage"] + CASES["print and assert"]

rng = np.random.default_rng(95)
PYTHON_OPS = {"feed", "fetch", "print", "assert", "load", "load_combine", "save", "save_combine", "read_file"}
# (and the parameter-server, parameter-service, reader and py_func ops: tests/kernels/test_structured_dist.py)
PASSED = {"depend": "X", "share_data": "X", "memcpy": "X", "memcpy_d2h": "X", "memcpy_h2d": "X", "npu_identity": "x"}


def _attrs(op, **attrs):
    return dict(registry.get(op).default_attrs(), **attrs)


def _run(op, ins, attrs, ctx=None):
    """The op's meta rule and CPU out-kernel (told ``ctx`` where it takes one) into the outputs allocated for its
    Meta: (meta, outputs)."""
    s = registry.get(op).structured
    ctx = KernelContext() if ctx is None else ctx
    meta = s.meta(attrs, ins, ctx)
    outs = allocate(meta, ins)
    extra = (ctx,) if getattr(s.cpu, "takes_context", False) else ()
    assert s.cpu(ins, outs, attrs, meta, *extra) is None
    return meta, outs


@pytest.mark.parametrize("case", HOST_CASES, ids=[c.id for c in HOST_CASES])
def test_the_out_kernels_give_each_op_cases_values(case):
    """Every op case of the dependency ops, coalesce_tensor, delete_var, print and assert: the out-kernel's outputs
    are the case's (a list output's per variable), the dependency ops' the inputs themselves."""
    attrs = _attrs(case.op, **case.attrs)
    ins = dict(case.inputs)
    with redirect_stdout(io.StringIO()):
        meta, outs = _run(case.op, ins, attrs, KernelContext(input_names={}, op_state={}))
    want = case.ref(case.inputs, attrs)
    assert set(want) <= set(outs)
    for slot, value in want.items():
        got = outs[slot]
        got, value = (got, value) if isinstance(value, list) else ([got], [value])
        assert len(got) == len(value) and all(np.array_equal(g, v) for g, v in zip(got, value)), slot
    for slot, src in meta.aliases.items():
        assert outs[slot] is ins[src]


def test_the_ops_that_touch_python_say_so_and_the_others_do_not():
    """Exactly the ops whose out-kernels print, raise on a value, touch files or the run's holders are marked."""
    from tests.kernels.test_structured_dist import PYTHON

    marked = {t for t in registry.all_op_types() if getattr(registry.get(t).structured, "python", False)}
    # (the ring ops: tests/kernels/test_structured_collectives.py; the tensor-array and block ops:
    # tests/kernels/test_structured_control_flow.py; the server, reader and py_func ops: test_structured_dist.py)
    others = CONVERTED["collectives"] | CONVERTED["tensor arrays"] | CONVERTED["block ops"] | PYTHON
    assert marked - others == PYTHON_OPS
    assert CONVERTED["collectives"] | PYTHON <= marked


@pytest.mark.parametrize("op", sorted(PASSED))
@pytest.mark.parametrize("form", ["c", "fortran", "strided", "0-d", "empty"])
def test_the_dependency_ops_pass_x_on_as_it_is(op, form):
    """Out is X itself (no copy, whatever its layout), through the op's kernel and its executor step."""
    x = {
        "c": rng.uniform(size=(3, 4)),
        "fortran": np.asfortranarray(rng.uniform(size=(3, 4))),
        "strided": rng.uniform(size=(3, 8))[:, ::2],
        "0-d": np.array(2.5, np.float32),
        "empty": np.zeros((0, 3), np.int64),
    }[form]
    src, out = PASSED[op], "out" if op == "npu_identity" else "Out"
    ins = {src: x, **({"Dep": [rng.uniform(size=2)]} if op == "depend" else {})}
    meta = registry.get(op).structured.meta(_attrs(op), ins, KernelContext())
    assert meta.aliases == {out: src} and meta.outputs[out] == (x.shape, x.dtype)
    assert registry.get(op).kernel("cpu")(ins, _attrs(op))[out] is x
    step = registry.get(op).step_kernel("cpu")
    assert step(ins, _attrs(op), KernelContext())[out] is x


def test_nop_and_share_buffer_pass_their_lists_on():
    xs = [rng.uniform(size=(2, 3)), np.arange(4)]
    assert registry.get("nop").kernel("cpu")({"X": xs}, _attrs("nop"))["Out"] == xs
    assert registry.get("nop").kernel("cpu")({}, _attrs("nop")) == {"Out": []}
    outs = registry.get("share_buffer").kernel("cpu")({"X": xs}, _attrs("share_buffer"))
    assert all(a is b for a, b in zip(outs["Out"], xs)) and all(a is b for a, b in zip(outs["XOut"], xs))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool", "float16"])
@pytest.mark.parametrize("out_dtype", [0, 2, 3, 5, 6, 20, 21])
def test_transfer_dtype_fills_the_buffer_it_is_handed_with_numpys_conversion(dtype, out_dtype):
    """Every element of a sentinel buffer written with X.astype's bits (NaN, infinities and values out of an int's
    range too), from a strided X (to float16: the next test)."""
    with np.errstate(all="ignore"):
        x = np.array([np.nan, np.inf, -np.inf, 3e9, -2.5, 255.5, 1e-8, 7.0] * 2).reshape(4, 4)[:, ::2].astype(dtype)
    attrs = _attrs("transfer_dtype", out_dtype=out_dtype)
    s = registry.get("transfer_dtype").structured
    meta = s.meta(attrs, {"X": x}, KernelContext())
    answers = []
    for fill in (0, 1):
        shape, dt = meta.outputs["Out"]
        buf = np.full(shape, fill, dt)
        outs = {"Out": buf}
        with np.errstate(all="ignore"):
            s.cpu({"X": x}, outs, attrs, meta)
        assert outs["Out"] is buf
        answers.append(buf.tobytes())
    with np.errstate(all="ignore"):
        want = x.astype(meta.outputs["Out"][1])
    assert answers[0] == answers[1] == want.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_transfer_dtype_to_float16_converts_as_paddle_and_cast_do(dtype):
    """To float16, Paddle's conversion (its TransDataType's, cast's: the mantissa truncated, beyond float16's
    largest inf), not numpy's rounding: the bits Paddle 2.6.2's transfer_dtype and cast give for these float32
    values; float16 X as it is."""
    xs = np.array([1.0009765625 + 2**-11, 1 + 2**-11 + 2**-20, 65519.0, 65520.0, 1e-7, 3.14159, -2.0004883, 70000])
    x = xs.astype(dtype)
    out = registry.get("transfer_dtype").kernel("cpu")({"X": x}, _attrs("transfer_dtype", out_dtype=4))["Out"]
    cast = registry.get("cast").kernel("cpu")({"X": x}, _attrs("cast", out_dtype="float16"))["Out"]
    assert out.dtype == np.float16 and out.tobytes() == cast.tobytes()
    if dtype == "float32":  # (Paddle 2.6.2's, run on these values)
        assert out.view(np.uint16).tolist() == [15361, 15360, 31744, 31744, 1, 16968, 49152, 31744]
    half = np.float16([1.5, -0.0, 65504])
    assert (
        registry.get("transfer_dtype")
        .kernel("cpu")({"X": half}, _attrs("transfer_dtype", out_dtype=4))["Out"]
        .tobytes()
        == half.tobytes()
    )


@pytest.mark.parametrize("attrs", [{"copy_data": True}, {"set_constant": True, "constant": 1.5}, {}])
def test_coalesce_tensor_outputs_are_views_of_its_fused_buffer(attrs):
    """FusedOutput of the Meta's length (each slice 4096-byte aligned); Output[i] its slice in Input[i]'s shape, a
    view of it; with copy_data Input's values, with set_constant the constant, else zeros."""
    xs = [rng.uniform(size=(2, 3)).astype(np.float32), np.float32([7, 8]), np.zeros((0, 2), np.float32)]
    attrs = _attrs("coalesce_tensor", dtype="float32", **attrs)
    meta, outs = _run("coalesce_tensor", {"Input": xs}, attrs)
    spans, total = coalesce_layout(xs, np.float32)
    fused = outs["FusedOutput"]
    assert meta.fresh and fused.shape == (total,) == meta.outputs["FusedOutput"][0] and fused.dtype == np.float32
    for x, out, (shape, _) in zip(xs, outs["Output"], meta.outputs["Output"]):
        assert out.shape == x.shape == shape and (out.size == 0 or np.shares_memory(out, fused))
        want = x if attrs["copy_data"] else np.full(x.shape, attrs["constant"] if attrs["set_constant"] else 0)
        assert np.array_equal(out, want)


def test_coalesce_tensor_outputs_take_the_buffers_dtype_as_paddle():
    """Output[i] are views of the buffer, in the dtype attribute's dtype (Paddle 2.6's ShareDataWith), when built and
    when run, where the build-time rule gave Input's dtype; copy_data copies an Input's bytes, so an int32 Input in a
    float32 buffer is reinterpreted (Paddle 2.6.2's values: 1 -> 1e-45, -2 -> NaN; pe converted the values), and an
    Input of another itemsize is refused (Paddle copies part of the slice and leaves the rest unset)."""
    from pe_cli import fluid

    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = fluid.data("a", [2, 3], "int32")
        o, f = main.global_block().create_var(name="o"), main.global_block().create_var(name="f")
        main.global_block().append_op(
            "coalesce_tensor", {"Input": [a]}, {"Output": [o], "FusedOutput": [f]}, {"dtype": "float32"}
        )
    assert (o.dtype, f.dtype) == ("float32", "float32")
    xs = [np.arange(6, dtype=np.int32).reshape(2, 3) + 1, np.arange(5, dtype=np.int32) - 2]
    meta, outs = _run("coalesce_tensor", {"Input": xs}, _attrs("coalesce_tensor", dtype="float32", copy_data=True))
    assert [d for _, d in meta.outputs["Output"]] == [np.float32] * 2
    assert [out.view(np.int32).tolist() for out in outs["Output"]] == [x.tolist() for x in xs]
    assert outs["Output"][0][0, 0] == np.float32(1e-45) and np.isnan(outs["Output"][1][:2]).all()
    with pytest.raises(PeError, match=r"copy_data of Input\[0\] \(int32\) into a float64 buffer: Paddle copies"):
        _run("coalesce_tensor", {"Input": xs}, _attrs("coalesce_tensor", dtype="float64", copy_data=True))


def test_feed_gives_the_holders_value_and_its_lod_and_refuses_a_missing_one():
    a, b = rng.uniform(size=(3, 2)), np.arange(4)
    holder = TensorArray([a, b], [[[0, 1, 3]], None])
    ctx = KernelContext()
    meta, outs = _run("feed", {"X": holder}, _attrs("feed", col=0), ctx)
    assert outs["Out"] is a and meta.outputs["Out"] == (a.shape, a.dtype) and ctx.out_lod == {"Out": [[0, 1, 3]]}
    for holder, col in (([a, None], 1), ([a], 1), ([a], -1)):
        with pytest.raises(PeError, match=f"feed: the feed holder has no value at col {col}; feed the program"):
            registry.get("feed").structured.meta(_attrs("feed", col=col), {"X": holder}, KernelContext())


def test_fetch_puts_x_in_the_fetch_holder_at_col():
    x = rng.uniform(size=(2,))
    _, outs = _run("fetch", {"X": x}, _attrs("fetch", col=2))
    assert isinstance(outs["Out"], TensorArray) and outs["Out"][:2] == [None, None] and outs["Out"][2] is x


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
def test_print_fills_out_with_in_and_prints_what_its_kernel_prints(dtype, monkeypatch):
    """Out is a copy of In in the buffer handed (every element written); the text is the kernel's, once a run."""
    import pe_cli.kernels.cpu.printing as printing

    monkeypatch.setattr(printing.time, "time", lambda: 1700000000.0)
    x = np.asfortranarray(rng.uniform(-2, 2, size=(3, 4))).astype(dtype)
    attrs = _attrs("print", message="here")
    s = registry.get("print").structured
    meta = s.meta(attrs, {"In": x}, KernelContext())
    texts = []
    for fill in (0, 1):
        shape, dt = meta.outputs["Out"]
        buf = np.full(shape, fill, dt)
        outs, text = {"Out": buf}, io.StringIO()
        with redirect_stdout(text):
            s.cpu({"In": x}, outs, attrs, meta, KernelContext(input_names={"In": ("v",)}, lod={"In": [[0, 3]]}))
        assert outs["Out"] is buf and buf.tobytes() == np.ascontiguousarray(x).tobytes()
        texts.append(text.getvalue())
    kernel_text = io.StringIO()
    with redirect_stdout(kernel_text):
        registry.get("print").kernel("cpu")(
            {"In": x}, attrs, KernelContext(input_names={"In": ("v",)}, lod={"In": [[0, 3]]})
        )
    assert texts[0] == texts[1] == kernel_text.getvalue()
    assert texts[0].startswith("1700000000\there\tThe place is:CPUPlace\nTensor[v]\n\tshape: [3,4,]\n")


def test_assert_has_no_output_and_stops_the_run_on_a_false_cond():
    data = [np.arange(3.0)]
    assert _run("assert", {"Cond": np.array([True]), "Data": data}, _attrs("assert"))[1] == {}
    with pytest.raises(PeError, match=r"^assert: Cond is false; Data\[0\] \[3\]: \[0.0, 1.0\]$"):
        _run("assert", {"Cond": np.array([False]), "Data": data}, _attrs("assert", summarize=2))


def test_save_and_load_through_their_out_kernels(tmp_path):
    """save writes X and its LoD, load reads them back (its LoD handed back on the context); save_combine's bytes
    into memory are the file's, which load_combine reads; a file there already is refused without overwrite."""
    x, y = rng.uniform(size=(3, 2)).astype(np.float32), np.arange(5)
    path = str(tmp_path / "x")
    assert _run("save", {"X": x}, _attrs("save", file_path=path), KernelContext(lod={"X": [[0, 1, 3]]}))[1] == {}
    ctx = KernelContext()
    meta, outs = _run("load", {}, _attrs("load", file_path=path), ctx)
    assert meta.fresh and outs["Out"].tobytes() == x.tobytes() and ctx.out_lod == {"Out": [[0, 1, 3]]}
    with pytest.raises(PeError, match="exists!, cannot save to it when overwrite is set to false"):
        _run("save", {"X": x}, _attrs("save", file_path=path, overwrite=False))
    combined = str(tmp_path / "c")
    _run("save_combine", {"X": [x, y]}, _attrs("save_combine", file_path=combined), KernelContext(lod={"X": None}))
    meta, outs = _run("save_combine", {"X": [x, y]}, _attrs("save_combine", save_to_memory=True))
    assert meta.fresh and outs["Y"].dtype == np.uint8
    with open(combined, "rb") as f:
        assert f.read() == outs["Y"].tobytes()
    _, outs = _run(
        "load_combine", {}, _attrs("load_combine", file_path=combined), KernelContext(output_counts={"Out": 2})
    )
    assert [o.tobytes() for o in outs["Out"]] == [x.tobytes(), y.tobytes()]
    sr = SelectedRows(np.array([1]), np.ones((1, 2)), 3)
    with pytest.raises(PeError, match="save_combine: SaveCombineOp only supports LoDTensor"):
        registry.get("save_combine").structured.meta(_attrs("save_combine"), {"X": [x, sr]}, KernelContext())
    assert not os.path.exists(str(tmp_path / "never"))


# the file Paddle 2.6.2's save op wrote for rows [1, 4, 4], height 6, values arange(6).reshape(3, 2) + 0.5 (float32)
_PADDLE_SR_FILE = (
    "0000000003000000000000000100000000000000040000000000000004000000000000000600000000000000000000000600000008051003"
    "10020000003f0000c03f0000204000006040000090400000b040"
)


def test_a_selected_rows_saved_by_save_loads_back_through_load(tmp_path):
    """A program's save op writes a SELECTED_ROWS variable in Paddle's format (the bytes Paddle 2.6.2's wrote) and its
    load op reads it back into a SELECTED_ROWS variable (Paddle's load_sr kernel): rows, height and values, where
    load read it as a LoDTensor and failed ("a LoD level of 1 bytes is not a list of uint64 offsets")."""
    from pe_cli import fluid

    path = str(tmp_path / "sr.bin")
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    sr = scope.var("sr").get_selected_rows()
    sr.set_height(6)
    sr.set_rows([1, 4, 4])
    sr.get_tensor().set(np.arange(6, dtype="float32").reshape(3, 2) + 0.5, fluid.CPUPlace())
    save, load = fluid.Program(), fluid.Program()
    v = save.global_block().create_var(
        name="sr", type=fluid.core.VarDesc.VarType.SELECTED_ROWS, dtype="float32", persistable=True
    )
    save.global_block().append_op(type="save", inputs={"X": [v]}, outputs={}, attrs={"file_path": path})
    o = load.global_block().create_var(
        name="out", type=fluid.core.VarDesc.VarType.SELECTED_ROWS, dtype="float32", persistable=True
    )
    load.global_block().append_op(type="load", inputs={}, outputs={"Out": [o]}, attrs={"file_path": path})
    with fluid.scope_guard(scope):
        exe.run(save)
        exe.run(load)
    with open(path, "rb") as f:
        assert f.read().hex() == _PADDLE_SR_FILE
    got = scope.var("out").get_selected_rows()
    assert (list(got.rows()), got.height()) == ([1, 4, 4], 6)
    assert np.array(got.get_tensor()).tolist() == [[0.5, 1.5], [2.5, 3.5], [4.5, 5.5]]


def test_a_planned_step_runs_print_between_its_segments():
    """relu, print, relu planned: the relus' launches in segments of their own, print a Python launch between
    them (a step that runs it, printing its values)."""
    program = Program()
    block = program.global_block()
    for name in ("x", "a", "b", "c"):
        block.create_var(name=name)
    block.append_op("relu", {"X": ["x"]}, {"Out": ["a"]}, {})
    block.append_op("print", {"In": ["a"]}, {"Out": ["b"]}, {"message": "m"})
    block.append_op("relu", {"X": ["b"]}, {"Out": ["c"]}, {})
    steps = [OpStep(op, CPUPlace()) for op in block.ops]
    values = Values({"x": rng.uniform(-1, 1, size=(4, 3)).astype(np.float32)})
    with redirect_stdout(io.StringIO()):
        for step in steps:
            run_step(step, values)
    assert not DevicePlan._plannable(steps[1], {}) and DevicePlan._plannable(steps[0], {})
    plan = DevicePlan(steps, values)
    assert plan.launches[0] and plan.launches[1] is None and plan.launches[2]
    entries = segments_of(plan)
    assert len(entries) == 3 and entries[1] == 1 and entries[0].steps == [steps[0]] and entries[2].steps == [steps[2]]


def test_a_planned_step_never_plans_an_op_marked_python(monkeypatch):
    """assert (no LoD, no draws: nothing else keeps it out of a segment) is planned only where its mark is taken
    away."""
    import dataclasses

    program = Program()
    block = program.global_block()
    block.create_var(name="cond")
    block.append_op("assert", {"Cond": ["cond"]}, {}, {})
    step = OpStep(block.ops[0], CPUPlace())
    assert not DevicePlan._plannable(step, {})
    opdef = registry.get("assert")
    monkeypatch.setattr(opdef, "structured", dataclasses.replace(opdef.structured, python=False))
    assert DevicePlan._plannable(step, {})


def test_read_file_gives_the_files_bytes(tmp_path):
    """read_file (paddle.vision.ops.read_file) hands over the file's bytes, uint8, as Paddle 2.6.2 reads them (its
    values recorded: tests/paddle/test_vision_ops.py); a missing file is a one-line error (Paddle's kernel raises
    PreconditionNotMetError), as is a directory (Paddle asks for 2**63 - 1 bytes: MemoryError)."""
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc\x00\xff\n")
    meta, outs = _run("read_file", {}, _attrs("read_file", filename=str(path)))
    assert meta.fresh and outs["Out"].dtype == np.uint8 and outs["Out"].tolist() == [97, 98, 99, 0, 255, 10]
    (tmp_path / "empty").write_bytes(b"")
    assert _run("read_file", {}, _attrs("read_file", filename=str(tmp_path / "empty")))[1]["Out"].shape == (0,)
    with pytest.raises(PeError, match="read_file: cannot read '.*missing': no such file"):
        _run("read_file", {}, _attrs("read_file", filename=str(tmp_path / "missing")))
    with pytest.raises(PeError, match="is a directory, not a regular file"):
        _run("read_file", {}, _attrs("read_file", filename=str(tmp_path)))
