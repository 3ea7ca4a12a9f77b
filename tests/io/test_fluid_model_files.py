"""Models saved by PaddlePaddle Fluid load in pe (pe_cli/io/fluid_model.py, pe_cli/base/fluid_proto.py): a
``__model__`` ProgramDesc as Fluid writes it (feed and fetch ops with their holder variables, the
attributes Fluid puts on every op) and the parameters in Fluid's LoDTensor files, one per variable
or combined. The parameter files here are assembled byte by byte from the format's description, not
by pe's writer, and the program from the protobuf messages, as Fluid's C++ would."""

from paths import TESTS
import os
import struct

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.base.fluid_proto import messages, read_lod_tensors, write_lod_tensor

FP32, INT64, LOD_TENSOR, FEED, FETCH = 5, 3, 7, 9, 10


def tensor_file(array, lod=()):
    """Fluid's serialization of a LoDTensor, written out from its description."""
    desc = bytes([0x08, {np.float32: FP32, np.int64: INT64}[array.dtype.type]])
    for d in array.shape:  # dims: field 2, varint (non-packed, proto2)
        desc += b"\x10" + _varint(d)
    out = struct.pack("<I", 0) + struct.pack("<Q", len(lod))
    for level in lod:
        out += struct.pack("<Q", 8 * len(level)) + struct.pack(f"<{len(level)}Q", *level)
    return (
        out
        + struct.pack("<I", 0)
        + struct.pack("<i", len(desc))
        + desc
        + array.astype("<" + array.dtype.str[1:]).tobytes()
    )


def _varint(n):
    out = b""
    while True:
        out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            return out


def _var(block, name, dims, persistable=False, kind=LOD_TENSOR):
    v = block.vars.add(name=name, persistable=persistable)
    v.type.type = kind
    if kind == LOD_TENSOR:
        v.type.lod_tensor.tensor.data_type = FP32
        v.type.lod_tensor.tensor.dims.extend(dims)


def _op(block, op_type, inputs, outputs, **attrs):
    op = block.ops.add(type=op_type)
    for slot, args in inputs.items():
        op.inputs.add(parameter=slot, arguments=args)
    for slot, args in outputs.items():
        op.outputs.add(parameter=slot, arguments=args)
    kinds = {int: (0, "i"), float: (1, "f"), str: (2, "s"), bool: (6, "b")}
    for name, value in attrs.items():
        kind, field = kinds[type(value)] if not isinstance(value, list) else (5, "strings")
        attr = op.attrs.add(name=name, type=kind)
        if isinstance(value, list):
            attr.strings.extend(value)
        else:
            setattr(attr, field, value)
    return op


def mlp_desc(extra_attr=None):
    """x [-1, 4] -> mul w [4, 3] -> + b -> softmax, with feed/fetch ops and Fluid's bookkeeping attrs."""
    desc = messages()["ProgramDesc"]()
    block = desc.blocks.add(idx=0, parent_idx=-1)
    for name, dims, persistable in (
        ("x", [-1, 4], False),
        ("fc_0.w_0", [4, 3], True),
        ("fc_0.b_0", [3], True),
        ("fc_0.tmp_0", [-1, 3], False),
        ("fc_0.tmp_1", [-1, 3], False),
        ("fc_0.tmp_2", [-1, 3], False),
    ):
        _var(block, name, dims, persistable)
    _var(block, "feed", [], True, FEED)
    _var(block, "fetch", [], True, FETCH)
    fluid_attrs = dict(op_role=0, op_namescope="/", op_callstack=["File x.py, line 1"], op_device="")
    _op(block, "feed", {"X": ["feed"]}, {"Out": ["x"]}, col=0, **fluid_attrs)
    _op(
        block,
        "mul",
        {"X": ["x"], "Y": ["fc_0.w_0"]},
        {"Out": ["fc_0.tmp_0"]},
        x_num_col_dims=1,
        y_num_col_dims=1,
        use_mkldnn=False,
        scale_x=1.0,
        force_fp32_output=False,
        **fluid_attrs,
    )
    _op(
        block,
        "elementwise_add",
        {"X": ["fc_0.tmp_0"], "Y": ["fc_0.b_0"]},
        {"Out": ["fc_0.tmp_1"]},
        axis=1,
        x_data_format="",
        mkldnn_data_type="float32",
        **fluid_attrs,
    )
    _op(
        block,
        "softmax",
        {"X": ["fc_0.tmp_1"]},
        {"Out": ["fc_0.tmp_2"]},
        axis=-1,
        data_format="AnyLayout",
        use_cudnn=False,
        **dict(fluid_attrs, **(extra_attr or {})),
    )
    _op(block, "fetch", {"X": ["fc_0.tmp_2"]}, {"Out": ["fetch"]}, col=0, **fluid_attrs)
    desc.version.version = 1008005
    return desc


W = np.arange(12, dtype=np.float32).reshape(4, 3) / 10 - 0.5
B = np.array([0.1, -0.2, 0.3], np.float32)


def _expected(x):
    z = x @ W + B
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _save(tmp_path, desc, combined=False):
    (tmp_path / ("model" if combined else "__model__")).write_bytes(desc.SerializeToString())
    if combined:  # save_combine: the variables end to end, by sorted name
        (tmp_path / "params").write_bytes(tensor_file(B) + tensor_file(W))
    else:
        (tmp_path / "fc_0.w_0").write_bytes(tensor_file(W))
        (tmp_path / "fc_0.b_0").write_bytes(tensor_file(B))


@pytest.mark.parametrize("combined", [False, True])
def test_a_fluid_inference_model_loads_and_computes_what_it_describes(tmp_path, combined):
    _save(tmp_path, mlp_desc(), combined)
    exe = fluid.Executor(fluid.CPUPlace())
    names = dict(model_filename="model", params_filename="params") if combined else {}
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path), exe, **names)
        assert feeds == ["x"] and [v.name for v in fetches] == ["fc_0.tmp_2"]
        assert [op.type for op in program.global_block().ops] == ["mul", "elementwise_add", "softmax"]
        x = np.random.RandomState(0).randn(5, 4).astype(np.float32)
        (got,) = exe.run(program, feed={"x": x}, fetch_list=fetches)
    np.testing.assert_allclose(got, _expected(x), rtol=1e-5)


def test_the_tensor_format_reads_lod_and_writes_the_same_bytes():
    ids = np.array([[3], [1], [4], [1], [5]], np.int64)
    data = tensor_file(ids, lod=[[0, 2, 5]]) + tensor_file(W)
    (a, lod), (w, none) = read_lod_tensors(data, "f")
    assert lod == [[0, 2, 5]] and none == []
    np.testing.assert_array_equal(a, ids)
    np.testing.assert_array_equal(w, W)
    assert write_lod_tensor(ids, [[0, 2, 5]]) + write_lod_tensor(W) == data


@pytest.mark.parametrize(
    "damage,message",
    [
        (lambda b: b[:-3], "truncated LoDTensor"),
        (lambda b: b[:4] + struct.pack("<Q", 1) + struct.pack("<Q", 1 << 60) + b[12:], "LoD level of"),
        (lambda b: b"\x01" + b[1:], "version is not 0"),
        (lambda b: b + b"\x00", "bytes follow"),
    ],
)
def test_a_damaged_parameter_file_is_named(tmp_path, damage, message):
    _save(tmp_path, mlp_desc())
    path = tmp_path / "fc_0.w_0"
    path.write_bytes(damage(path.read_bytes()))
    with fluid.scope_guard(fluid.Scope()), pytest.raises(PeError, match=message) as e:
        fluid.io.load_inference_model(str(tmp_path), fluid.Executor(fluid.CPUPlace()))
    assert "fc_0.w_0" in str(e.value)


def test_what_pe_cannot_run_is_refused_with_the_op_named(tmp_path):
    """An attribute neither Fluid 1.8.5's nor Paddle 2.6.2's op declares is refused in one line naming the
    file, block, op, attribute and value (Fluid 1.8.5 ignores it and runs; pe never runs an op without an
    attribute it was given: docs/COMPAT.md, "Every attribute"); an op pe lacks is refused."""
    _save(tmp_path, mlp_desc(extra_attr={"use_special_softmax": True}))
    with pytest.raises(
        PeError,
        match=r"__model__: block 0 op 3 \(softmax\): attribute use_special_softmax=True "
        r"is not an attribute of softmax",
    ):
        fluid.io.load_inference_model(str(tmp_path), fluid.Executor(fluid.CPUPlace()))
    desc = mlp_desc()
    desc.blocks[0].ops[3].type = "fancy_softmax"
    _save(tmp_path, desc)
    with pytest.raises(PeError, match="pe has no op 'fancy_softmax'"):
        fluid.io.load_inference_model(str(tmp_path), fluid.Executor(fluid.CPUPlace()))
    (tmp_path / "__model__").write_bytes(b"\x0a\xff\xff\xff\xff\x0f garbage")
    with pytest.raises(PeError, match="not a Fluid ProgramDesc"):
        fluid.io.load_inference_model(str(tmp_path), fluid.Executor(fluid.CPUPlace()))


def test_a_parameter_of_another_shape_is_refused_before_anything_is_set(tmp_path):
    _save(tmp_path, mlp_desc())
    (tmp_path / "fc_0.b_0").write_bytes(tensor_file(np.zeros(4, np.float32)))
    scope = fluid.Scope()
    with fluid.scope_guard(scope), pytest.raises(PeError, match=r"fc_0.b_0.*shape \[4\].*expects \[3\]"):
        fluid.io.load_inference_model(str(tmp_path), fluid.Executor(fluid.CPUPlace()))
    assert scope.find_var("fc_0.w_0") is None


@pytest.mark.parametrize("combined", [False, True])
def test_load_params_reads_a_fluid_checkpoint(tmp_path, combined):
    """fluid.io.load_params / load_persistables of what Fluid's save_params wrote."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [4])
        out = fluid.layers.fc(x, 3, act="softmax", param_attr="fc_0.w_0", bias_attr="fc_0.b_0")
    _save(tmp_path, mlp_desc(), combined)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        fluid.io.load_params(exe, str(tmp_path), main, filename="params" if combined else None)
        xv = np.random.RandomState(1).randn(3, 4).astype(np.float32)
        (got,) = exe.run(main, feed={"x": xv}, fetch_list=[out])
    np.testing.assert_allclose(got, _expected(xv), rtol=1e-5)


def test_dtype_attributes_stored_as_fluid_codes(tmp_path):
    """Fluid stores a dtype attribute as its VarType code (cast's out_dtype=6 is float64)."""
    desc = messages()["ProgramDesc"]()
    block = desc.blocks.add(idx=0, parent_idx=-1)
    _var(block, "x", [-1, 2])
    _var(block, "y", [-1, 2])
    block.vars[1].type.lod_tensor.tensor.data_type = 6
    _var(block, "feed", [], True, FEED)
    _var(block, "fetch", [], True, FETCH)
    _op(block, "feed", {"X": ["feed"]}, {"Out": ["x"]}, col=0)
    _op(block, "cast", {"X": ["x"]}, {"Out": ["y"]}, in_dtype=5, out_dtype=6, op_role=0)
    _op(block, "fetch", {"X": ["y"]}, {"Out": ["fetch"]}, col=0)
    (tmp_path / "__model__").write_bytes(desc.SerializeToString())
    exe = fluid.Executor(fluid.CPUPlace())
    program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path), exe)
    (got,) = exe.run(program, feed={"x": np.array([[1.5, -2]], np.float32)}, fetch_list=fetches)
    assert got.dtype == np.float64 and got.tolist() == [[1.5, -2.0]]


@pytest.mark.parametrize("name", ["lenet", "mlp_relu6", "attention"])
def test_models_that_paddle_saved_compute_what_paddle_computed(name):
    """tests/data/paddle_models: written by PaddlePaddle 2.6.2 itself (make_paddle_models.py there),
    with Paddle's outputs for fixed inputs."""
    folder = os.path.join(TESTS, "data", "paddle_models")
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(
            folder, exe, model_filename=f"{name}.pdmodel", params_filename=f"{name}.pdiparams"
        )
        with np.load(os.path.join(folder, f"{name}_io.npz"), allow_pickle=False) as io:
            (got,) = exe.run(program, feed={n: io[n] for n in feeds}, fetch_list=fetches)
            np.testing.assert_allclose(got, io["out"], rtol=1e-5, atol=1e-6)


def test_a_paddle_checkpoint_resumes_in_pe():
    """fluid.load of what paddle.static.save wrote after an Adam step (tests/data/paddle_models):
    the parameters and the optimizer state (moments, beta powers, learning rate) Paddle held."""
    folder = os.path.join(TESTS, "data", "paddle_models")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():  # Paddle's names: learning_rate_0
        x = fluid.layers.data("x", [4])
        y = fluid.layers.fc(x, 3, param_attr="w", bias_attr="b")
        fluid.optimizer.Adam(0.1).minimize(fluid.layers.mean(y * y))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope), np.load(os.path.join(folder, "adam_state_values.npz")) as want:
        exe.run(startup)
        fluid.load(main, os.path.join(folder, "adam_state"), exe)
        assert len(want.files) == 11
        for name in want.files:
            np.testing.assert_array_equal(
                np.array(scope.find_var(name).get_tensor()).reshape(want[name].shape), want[name], err_msg=name
            )


def test_paddles_pooling_convolution_and_activations_match():
    """tests/data/paddle_models/ops: 19 fetch targets of one Paddle 2.6.2 program (pool2d in ceil mode,
    exclusive or not; a grouped, dilated, strided conv2d; layer_norm; 7 activations; adaptive pooling,
    cumsum, sigmoid cross-entropy, conv2d_transpose, group_norm, instance_norm, prelu)."""
    folder = os.path.join(TESTS, "data", "paddle_models")
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(
            folder, exe, model_filename="ops.pdmodel", params_filename="ops.pdiparams"
        )
        with np.load(os.path.join(folder, "ops_io.npz"), allow_pickle=False) as io:
            got = exe.run(program, feed={"x": io["x"]}, fetch_list=fetches)
            assert len(got) == 19
            for i, g in enumerate(got):
                np.testing.assert_allclose(g, io[f"out{i}"], rtol=1e-5, atol=1e-6, err_msg=fetches[i].name)


def test_paddle_2x_interpolate_and_pad3d_match():
    """tests/data/paddle_models/resize_pad: Paddle 2.6.2's F.interpolate (bilinear_interp_v2 with a
    scale factor, a per-dim scale list, a size with corners aligned, NHWC; nearest_interp_v2;
    trilinear_interp_v2) and F.pad of 5-D tensors (pad3d: constant, reflect, replicate, circular,
    NDHWC). The model has no parameters, so Paddle wrote no .pdiparams."""
    folder = os.path.join(TESTS, "data", "paddle_models")
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(folder, exe, model_filename="resize_pad.pdmodel")
        types = {op.type for op in program.global_block().ops}
        assert {"bilinear_interp_v2", "nearest_interp_v2", "trilinear_interp_v2", "pad3d"} <= types
        with np.load(os.path.join(folder, "resize_pad_io.npz"), allow_pickle=False) as io:
            got = exe.run(program, feed={n: io[n] for n in feeds}, fetch_list=fetches)
            assert len(got) == 12
            for i, g in enumerate(got):
                np.testing.assert_allclose(g, io[f"out{i}"], rtol=1e-5, atol=1e-6, err_msg=fetches[i].name)


def test_a_missing_parameter_file_is_named(tmp_path):
    _save(tmp_path, mlp_desc())
    (tmp_path / "fc_0.b_0").unlink()
    with (
        fluid.scope_guard(fluid.Scope()),
        pytest.raises(PeError, match=r"fc_0.b_0' is missing: the checkpoint has no variable 'fc_0.b_0'"),
    ):
        fluid.io.load_inference_model(str(tmp_path), fluid.Executor(fluid.CPUPlace()))
