"""The structured kernels of the convolutions that are no regular conv2d or conv3d (shapes/convolution_irregular.py:
conv_shift, deformable_conv(_v1), tree_conv, sequence_conv), spp (shapes/pooling.py: a pool2d Meta per level) and
temporal_shift (shapes/video.py), with their grad ops (issue 95). Their out-kernels fill every element of the buffers
they are handed (deformable_conv's ``fresh`` numpy form: new C-contiguous arrays sharing no input's memory) with the
op's kernel's bits and the op case's reference values; a grad op writes the outputs its context asks for, each alone;
sequence_conv's step keeps a Meta per shape signature and LoD."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.errors import PeError
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_detection import _arrays, _run, _same_bits
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(31)
_CASES = CASES["irregular convolutions, spp and temporal_shift"]


def _grad_inputs(grad, ins, outs):
    given = dict(ins, **outs)
    for slot, value in outs.items():
        if value.dtype.kind == "f":
            given[slot + "@GRAD"] = rng.uniform(-1, 1, value.shape).astype(value.dtype)
    return {s.name: given[s.name] for s in grad.inputs if s.name in given}


def test_the_family_has_op_cases_of_every_forward_op():
    assert {c.op for c in _CASES} == {
        "conv_shift",
        "deformable_conv",
        "deformable_conv_v1",
        "tree_conv",
        "sequence_conv",
        "spp",
        "temporal_shift",
    }


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["case", "float64", "float32"])
@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_fill_what_they_are_handed(case, dtype):
    """Every op case of the family, forward and gradient (each output asked for alone too), in the case's dtypes
    (then the reference values too) and with its float inputs in float64 and float32: the outputs are the buffers
    handed (or new arrays of the Meta's), every element written, C-contiguous, the op's kernel's bits."""
    attrs = _attrs_with_defaults(case)
    ins, lods = _arrays(case, dtype)
    ctx = KernelContext(lod=lods)
    outs = _run(case.op, ins, attrs, ctx)
    _same_bits(outs, registry.get(case.op).kernel("cpu")(dict(ins), dict(attrs), ctx))
    if dtype == "case" and case.ref is not None:
        for slot, want in case.ref(case.inputs, attrs).items():
            np.testing.assert_allclose(outs[slot], want, rtol=max(case.rtol, 1e-5), atol=max(case.atol, 1e-6))
    grad = registry.get(case.op + "_grad")
    gins = _grad_inputs(grad, ins, outs)
    if case.id == "spp_x_below_its_bins":  # (its gradient refused, as Paddle 2.6.2 refuses it)
        with pytest.raises(PeError, match="too small for pyramid_height=3"):
            _run(grad.type, gins, attrs, ctx)
        return
    every = _run(grad.type, gins, attrs, ctx)
    _same_bits(every, grad.kernel("cpu")(dict(gins), dict(attrs), ctx))
    assert set(every) == {s + "@GRAD" for s in ins if s + "@GRAD" in {o.name for o in grad.outputs}}
    for slot in every if len(every) > 1 else ():
        alone = KernelContext(lod=lods, outputs=frozenset([slot]))
        _same_bits(_run(grad.type, gins, attrs, alone), {slot: every[slot]})


def test_sequence_conv_with_trainable_padding_writes_both_gradients_from_one_scratch():
    """sequence_conv_grad with PaddingData's rows trainable ("padded": the context's gradient scattered into one
    scratch of X's and PaddingData's rows), and with them not trainable ("rows": PaddingData@GRAD zeros of its
    own dtype)."""
    x, w, pad = rng.normal(size=(7, 2)), rng.normal(size=(6, 3)), rng.normal(size=(2, 2)).astype("float32")
    dout = rng.normal(size=(7, 3))
    ins = {"X": x, "Filter": w, "PaddingData": pad, "Out@GRAD": dout}
    ctx = KernelContext(lod={"X": [[0, 3, 7]]})
    for trainable, variant in ((True, "padded"), (False, "rows")):
        attrs = {"contextLength": 3, "contextStart": -1, "contextStride": 1, "paddingTrainable": trainable}
        opdef = registry.get("sequence_conv_grad")
        assert opdef.structured.meta(attrs, ins, ctx).variant == variant
        outs = _run("sequence_conv_grad", ins, attrs, ctx)
        assert outs["PaddingData@GRAD"].dtype == (np.float64 if trainable else np.float32)
        assert outs["PaddingData@GRAD"].any() == trainable
        _same_bits(outs, opdef.kernel("cpu")(dict(ins), dict(attrs), ctx))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (the sentinel NaN cast into int buffers)
def test_spp_pools_each_level_into_its_part_of_out():
    """spp: each level's pool2d (its Meta decided with spp's) flattened into its columns of Out, in float32 (the
    loops: scratch buffers of the levels) and int32 (a max pool's numpy form: fresh levels)."""
    for dtype in ("float32", "int32"):
        x = (rng.uniform(-3, 3, size=(2, 3, 6, 5)) * 10).astype(dtype)
        attrs = {"pyramid_height": 3, "pooling_type": "max"}
        outs = _run("spp", {"X": x}, attrs, KernelContext())
        pool = registry.get("pool2d").kernel("cpu")
        meta = registry.get("spp").structured.meta(attrs, {"X": x}, KernelContext())
        parts = [pool({"X": x}, level)["Out"].reshape(2, -1) for level, _ in meta.args]
        assert outs["Out"].tobytes() == np.concatenate(parts, axis=1).tobytes()
        assert bool(meta.scratch) == (dtype == "float32")


def test_a_sequence_conv_step_keeps_a_meta_per_shape_signature_and_lod():
    """sequence_conv's step on the same shapes with two LoDs, each twice: its meta rule (the context map) runs once
    per (signature, LoD), and each run convolves within its own sequences."""
    attrs = {"contextLength": 3, "contextStart": -1}
    step = _step("sequence_conv", {"X": ["x"], "Filter": ["w"]}, attrs, {"Out": ["y"]})
    inner = inspect.unwrap(step.kernel)
    kernel, full = registry.get("sequence_conv").kernel("cpu"), dict(registry.get("sequence_conv").default_attrs())
    x, w = rng.normal(size=(6, 2)), rng.normal(size=(6, 4))
    for offsets in ([0, 2, 6], [0, 5, 6], [0, 2, 6], [0, 5, 6]):
        values = Values({"x": x, "w": w}, {"x": [offsets]})
        run_step(step, values)
        want = kernel({"X": x, "Filter": w}, dict(full, **attrs), KernelContext(lod={"X": [offsets]}))["Out"]
        assert values["y"].tobytes() == want.tobytes()
    assert len(inner.metas) == 2


_F = -3.4028234663852886e38  # (-FLT_MAX: Fluid's max pooling of an empty window)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (an empty window's average: 0 / 0)
def test_spp_of_an_x_below_its_bins_keeps_the_first_bins_as_paddle_262():
    """An X of H or W below 2^p by an odd count: Fluid's windows of 1, padded by (2^p - H + 1) / 2, pool 2^p + 1
    positions; spp keeps the first 2^p x 2^p of them, Out [N, C * 21] as its shape rule says (Paddle 2.6.2's values,
    recorded from its spp op; pe gave [N, C * 25] before). Its gradient is refused in one line, as Paddle refuses it."""
    spp = registry.get("spp").kernel("cpu")
    x = np.arange(9, dtype="float32").reshape(1, 1, 3, 3)
    level2 = [_F] * 5 + [0.0, 1.0, 2.0, _F, 3.0, 4.0, 5.0, _F, 6.0, 7.0, 8.0]
    got = spp({"X": x}, {"pyramid_height": 3, "pooling_type": "max"})["Out"]
    assert got.tolist() == [[8.0, 0.0, 2.0, 6.0, 8.0] + level2]
    got = spp({"X": x}, {"pyramid_height": 3, "pooling_type": "avg"})["Out"]
    want = [4.0, 0.0, 1.5, 4.5, 6.0] + [np.nan if v == _F else v for v in level2]
    np.testing.assert_array_equal(got, [want])
    x = np.arange(6, dtype="float32").reshape(1, 1, 2, 3)
    got = spp({"X": x}, {"pyramid_height": 3, "pooling_type": "max"})["Out"]
    assert got.tolist() == [[5.0, 0.0, 2.0, 3.0, 5.0] + [_F] * 5 + [0.0, 1.0, 2.0, _F, 3.0, 4.0, 5.0] + [_F] * 4]
    grad = registry.get("spp_grad").kernel("cpu")
    ins = {"X": x, "Out": got, "Out@GRAD": np.ones_like(got)}
    with pytest.raises(Exception, match=r"spp_grad: X \[1, 1, 2, 3\] is too small for pyramid_height=3: level 2's"):
        grad(ins, {"pyramid_height": 3, "pooling_type": "max"})


def test_spp_of_an_empty_batch_is_empty():
    """spp and spp_grad on a batch of no samples: Out [0, C * 21] (as Paddle 2.6.2's), X@GRAD [0, C, H, W] (pe
    refused it with numpy's reshape error before)."""
    x = np.zeros((0, 2, 4, 4), "float32")
    attrs = {"pyramid_height": 3, "pooling_type": "max"}
    out = registry.get("spp").kernel("cpu")({"X": x}, attrs)["Out"]
    assert out.shape == (0, 42) and out.dtype == np.float32
    dx = registry.get("spp_grad").kernel("cpu")({"X": x, "Out": out, "Out@GRAD": out}, attrs)["X@GRAD"]
    assert dx.shape == (0, 2, 4, 4)


@pytest.mark.parametrize("op", ["deformable_conv", "deformable_conv_v1"])
def test_deformable_conv_of_an_empty_batch_is_empty(op):
    """Input [0, C, H, W]: Output [0, M, Ho, Wo], Filter@GRAD zeros (a sum over no samples), the other gradients
    empty, where pe failed with numpy's reshape error. Paddle 2.6.2's CPU kernel dies of SIGFPE on this input
    (deformable_conv_kernel_impl.h: ``batch_size % min(64, batch_size)``, a remainder by 0); pe gives the empty
    result, which is what the op means."""
    f = np.float32
    ins = {"Input": np.zeros((0, 2, 4, 4), f), "Offset": np.zeros((0, 18, 2, 2), f), "Filter": np.ones((3, 2, 3, 3), f)}
    if op == "deformable_conv":
        ins["Mask"] = np.zeros((0, 9, 2, 2), f)
    attrs = registry.get(op).default_attrs()
    out = registry.get(op).kernel("cpu")(ins, dict(attrs))["Output"]
    assert (out.shape, out.dtype) == ((0, 3, 2, 2), np.float32)
    grads = registry.get(op + "_grad").kernel("cpu")(dict(ins, **{"Output@GRAD": out}), dict(attrs))
    assert {k: v.shape for k, v in grads.items()} == {k + "@GRAD": v.shape for k, v in ins.items()}
    assert not grads["Filter@GRAD"].any()
