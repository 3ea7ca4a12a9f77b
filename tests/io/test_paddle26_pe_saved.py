"""The models pe saves from Paddle 2.x programs hold what Paddle 2.6.2 reads: Paddle's op types, each
attribute under Paddle 2.6.2's name and of its framework.proto type (flip's ``axis``, not Fluid's ``dims``;
interpolate's ``scale`` FLOATS even of int scales; roll's LONGS) and Paddle 2.6.2's op_version_map, so
``paddle.static.load_inference_model`` loads them and computes pe's outputs (docs/COMPAT.md, "Paddle 2.6.2
loads what pe saves": tools/paddle26_pe_saved.py runs Paddle on them). Checked against the files Paddle 2.6.2
itself wrote (tests/data/paddle26_saved/, tools/paddle26_saved_models.py): a model pe loads and saves
again, and the same static programs built by pe's ``paddle``."""

from paths import REPO
import importlib.util
import os

import pytest

import pe_cli.paddle as paddle
from pe_cli.base.fluid_proto import parse_program_desc

ROOT = os.path.join(REPO, "tests", "data", "paddle26_saved")
CASES = sorted(d for d in os.listdir(ROOT) if os.path.isfile(os.path.join(ROOT, d, "record.json")))
with open(os.path.join(REPO, "tests", "data", "paddle-2.6.2-op-types.txt")) as _f:
    PADDLE26_OPS = set(_f.read().split())
# what only Paddle's Python sets (the call stack, name scope, role, device, quantization flag): any type
_NOT_COMPARED = {"op_callstack", "op_namescope", "op_role", "op_role_var", "op_device", "with_quant_attr"}


def _tool():
    spec = importlib.util.spec_from_file_location(
        "paddle26_saved_models", os.path.join(REPO, "tools", "paddle26_saved_models.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _desc(path):
    with open(path, "rb") as f:
        return parse_program_desc(f.read(), path)


def _ops(desc):
    return [op for block in desc.blocks for op in block.ops if op.type not in ("feed", "fetch")]


def _attr_types(op):
    return {a.name: a.type for a in op.attrs if a.name not in _NOT_COMPARED}


def _versions(desc):
    return {p.op_name: p.op_version.version for p in desc.op_version_map.pair}


def _same_as_paddles(theirs, ours):
    """Every op type of ours is Paddle 2.6.2's; every attribute both files give an op type has Paddle's type
    in ours, and every one Paddle's file gives it, ours gives it too (but for those pe leaves out: the
    backend switches, use_mkldnn...); ours holds Paddle's op versions."""
    assert {op.type for op in _ops(ours)} <= PADDLE26_OPS
    assert ours.version.version == theirs.version.version == 2006002
    want = {k: v for k, v in _versions(theirs).items() if k != "for_pybind_test__"}
    assert _versions(ours) == want
    by_type = {}
    for op in _ops(ours):
        by_type.setdefault(op.type, {}).update(_attr_types(op))
    for op in _ops(theirs):
        if op.type not in by_type:
            continue
        mine = by_type[op.type]
        for name, kind in _attr_types(op).items():
            if name in mine:
                assert mine[name] == kind, f"{op.type}.{name}: pe writes type {mine[name]}, Paddle 2.6.2 {kind}"
        assert {n for n in _attr_types(op) if n not in mine} <= _BACKEND, op.type


_BACKEND = {"use_mkldnn", "use_cudnn", "use_quantizer", "mkldnn_data_type", "place_type"}


@pytest.mark.parametrize("case", CASES)
def test_a_model_paddle_saved_is_saved_again_by_pe_as_paddle_wrote_it(case, tmp_path):
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(os.path.join(ROOT, case, "model"), exe)
        block = program.global_block()
        prefix = str(tmp_path / "model")
        paddle.static.save_inference_model(prefix, [block.var(n) for n in feeds], fetches, exe, program=program)
    _same_as_paddles(_desc(os.path.join(ROOT, case, "model.pdmodel")), _desc(prefix + ".pdmodel"))


STATIC = [c for c in CASES if c.startswith("static_")]


@pytest.mark.parametrize("case", STATIC)
def test_a_static_program_pe_builds_is_saved_as_paddle_saves_it(case, tmp_path):
    """The same 2.x program built by pe's paddle (flip, interpolate by an int scale, squeeze, one_hot, roll,
    linspace, p_norm, the activations of raised op versions...) and saved by save_inference_model."""
    build = _tool().STATIC[case]
    paddle.enable_static()  # (left on: pe refuses to build an op after disable_static, as later tests would)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.scope_guard(paddle.static.Scope()), paddle.static.program_guard(main, startup):
        x, y, _ = build(paddle)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        prefix = str(tmp_path / "model")
        feeds = x if isinstance(x, list) else [x]
        paddle.static.save_inference_model(prefix, feeds, y if isinstance(y, list) else [y], exe, program=main)
    ours = _desc(prefix + ".pdmodel")
    _same_as_paddles(_desc(os.path.join(ROOT, case, "model.pdmodel")), ours)
