"""The structured kernels of the assorted ops left to issue 95: instance_norm_grad_grad and batch_norm_grad_grad
(shapes/norm_double_grad.py), data_norm and its gradient (shapes/data_norm.py), pyramid_hash and its gradient
(shapes/pyramid_hash.py: the n-gram layout decided per LoD), rank_attention and its gradient, hash,
lookup_table_dequant, merged_momentum (momentum's rule on each parameter's entries), check_numerics and
weighted_sample_neighbors. Checked here: each op case (and its gradient) run through the meta rule and the
out-kernel into buffers of two sentinel patterns fills every element of the buffers it is handed (a ``fresh``
variant: new arrays of the Meta's shapes and dtypes, no input's memory), with the reference's values and the op's
kernel's bits; the refusals the rules now make; the closed forms of batch_norm_grad_grad with global statistics."""

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.errors import PeError
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from pe_cli.ops.registry import as_long
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_lod_ops import _lod_of, _matches, _sentinels

rng = np.random.default_rng(31)
FAMILIES = ("data_norm", "pyramid_hash", "rank_attention", "hash", "lookup_table_dequant")
FAMILIES += ("merged_momentum", "check_numerics", "weighted_sample_neighbors")
_CASES = [c for family in FAMILIES for c in CASES[family]]


def _context(lod):
    return KernelContext(lod=dict(lod), rng=np.random.default_rng(8))  # (the same draws for each fill)


def _arrays(value):
    return value if type(value) is list else [value]


def _filled(op, ins, attrs, lod):
    """The op's rule and out-kernel on ``ins`` into buffers of two sentinel patterns: the outputs of the first (each
    the buffer handed, every element written; a fresh one of the Meta's shape and dtype, sharing no input's memory,
    a list slot's one per variable) and the LoD the out-kernel set, the same for both."""
    opdef = registry.get(op)
    inputs = [a for v in ins.values() for a in _arrays(v) if isinstance(a, np.ndarray)]
    answers = []
    for fill in (np.nan, -7.25):
        ctx = _context(lod)
        meta = opdef.structured.meta(attrs, ins, ctx)
        outs = _sentinels(meta, ins, fill)
        given = dict(outs)
        told = getattr(opdef.structured.cpu, "takes_context", False)
        assert opdef.structured.cpu(*(ins, outs, dict(attrs), meta) + ((ctx,) if told else ())) is None
        assert set(outs) == set(meta.outputs), op
        for slot, spec in meta.outputs.items():
            for k, (got, s) in enumerate(zip(_arrays(outs[slot]), _arrays(spec))):
                assert _matches(got, s), (op, slot, got.shape, got.dtype, s)
                if meta.fresh:
                    assert not any(np.shares_memory(got, v) for v in inputs), (op, slot)
                else:
                    assert got is _arrays(given[slot])[k], (op, slot)
        answers.append((outs, repr(ctx.out_lod)))
    (first, lod_a), (second, lod_b) = answers
    assert lod_a == lod_b
    for slot, got in first.items():
        for a, b in zip(_arrays(got), _arrays(second[slot])):
            assert a.tobytes() == b.tobytes(), f"{op}: {slot} not filled completely"
    return first, answers[0][1]


def _kernel_bits(op, ins, attrs, lod, outs):
    """The op's kernel by name computes the same bits and the same LoD."""
    ctx = _context(lod)
    want = registry.get(op).kernel("cpu")(ins, dict(attrs), ctx)
    for slot, value in want.items():
        assert all(a.tobytes() == b.tobytes() for a, b in zip(_arrays(outs[slot]), _arrays(value))), (op, slot)
    return repr(ctx.out_lod)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", _CASES, ids=[f"{c.id}-{i}" for i, c in enumerate(_CASES)])
def test_out_kernels_fill_what_they_are_handed(case):
    """Every op case of the family, forward and (where it has one) gradient, on the forward's outputs."""
    spec = registry.get(case.op).attrs  # (a LONG attribute as the program's check makes it: hash's mod_by of 7.9, 7)
    attrs = {k: as_long(v) if k in spec and spec[k].long else v for k, v in _attrs_with_defaults(case).items()}
    ins = {k: [np.asarray(a) for a in v] if isinstance(v, list) else np.asarray(v) for k, v in case.inputs.items()}
    lod = {k: lod for k, v in case.inputs.items() if (lod := _lod_of(v))}
    outs, out_lod = _filled(case.op, ins, attrs, lod)
    assert _kernel_bits(case.op, ins, attrs, lod, outs) == out_lod
    if case.ref is not None and case.op != "weighted_sample_neighbors":
        for slot, want in case.ref(case.inputs, attrs).items():
            for got, w in zip(_arrays(outs[slot]), _arrays(want)):
                np.testing.assert_allclose(got, np.asarray(w), rtol=case.rtol, atol=case.atol)
    if case.check is not None:
        case.check(outs, case.inputs)
    grad = case.op + "_grad"
    if grad not in registry.all_op_types():
        return
    opdef = registry.get(grad)
    main = "Y" if case.op == "data_norm" else "Out"
    given = {**ins, **outs, f"{main}@GRAD": rng.uniform(-1, 1, np.shape(outs[main])).astype(outs[main].dtype)}
    gins = {s.name: given[s.name] for s in opdef.inputs if s.name in given}
    douts, _ = _filled(grad, gins, attrs, lod)
    _kernel_bits(grad, gins, attrs, lod, douts)
    if case.op != "data_norm":  # (the gradient of the parameter: finite differences in the op tests)
        (slot,) = douts
        assert douts[slot].shape == ins[slot[: -len("@GRAD")]].shape


def _norm_inputs(dtype, layout="NCHW"):
    x = rng.standard_normal((2, 3, 4, 5)).astype(dtype)
    c = 3 if layout == "NCHW" else 5
    vec = lambda: (rng.uniform(0.5, 2, c)).astype(dtype)  # noqa: E731
    return {
        "X": x,
        "Scale": vec(),
        "SavedMean": vec(),
        "SavedVariance": vec(),
        "DY": rng.standard_normal(x.shape).astype(dtype),
        "DDX": rng.standard_normal(x.shape).astype(dtype),
        "DDScale": vec(),
        "DDBias": vec(),
    }


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("mode", ["train", "use_global_stats"])
def test_batch_norm_grad_grad_hands_over_its_three_outputs(dtype, layout, mode):
    """DX, DDY of X's shape and DScale per channel in X's dtype; with global statistics the affine map's closed
    forms: DDY = Scale r DDX + DDScale (X - mean) r + DDBias, DX = DDScale r DY, DScale = sum(DDX r DY)."""
    ins = _norm_inputs(dtype, layout)
    attrs = dict(registry.get("batch_norm_grad_grad").default_attrs(), data_layout=layout)
    attrs["use_global_stats"] = mode == "use_global_stats"
    outs, _ = _filled("batch_norm_grad_grad", ins, attrs, {})
    _kernel_bits("batch_norm_grad_grad", ins, attrs, {}, outs)
    if mode == "train":
        return
    shape = (1, -1, 1, 1) if layout == "NCHW" else (1, 1, 1, -1)
    per = {k: ins[k].astype(np.float64).reshape(shape) for k in ("Scale", "SavedMean", "SavedVariance", "DDScale")}
    x, dy, ddx = (ins[k].astype(np.float64) for k in ("X", "DY", "DDX"))
    r, xh = per["SavedVariance"], (x - per["SavedMean"]) * per["SavedVariance"]
    tol = {"rtol": 1e-5 if dtype == "float32" else 1e-12, "atol": 1e-5 if dtype == "float32" else 1e-12}
    ddy = per["Scale"] * r * ddx + per["DDScale"] * xh + ins["DDBias"].astype(np.float64).reshape(shape)
    np.testing.assert_allclose(outs["DDY"], ddy, **tol)
    np.testing.assert_allclose(outs["DX"], per["DDScale"] * r * dy, **tol)
    axes = (0, 2, 3) if layout == "NCHW" else (0, 1, 2)
    np.testing.assert_allclose(outs["DScale"], (ddx * r * dy).sum(axis=axes), **tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_instance_norm_grad_grad_hands_over_its_three_outputs(dtype):
    ins = _norm_inputs(dtype)
    ins.update(SavedMean=rng.standard_normal(6).astype(dtype), SavedVariance=rng.uniform(0.5, 2, 6).astype(dtype))
    attrs = registry.get("instance_norm_grad_grad").default_attrs()
    outs, _ = _filled("instance_norm_grad_grad", ins, attrs, {})
    _kernel_bits("instance_norm_grad_grad", ins, attrs, {}, outs)
    assert outs["DScale"].shape == (3,) and outs["DX"].shape == outs["DDY"].shape == ins["X"].shape


def test_rank_attention_rules_refuse_a_rank_param_of_other_rows():
    ins = {"X": np.ones((2, 3)), "RankOffset": np.zeros((2, 5), np.int32), "RankParam": np.ones((11, 4))}
    for op in ("rank_attention", "rank_attention_grad"):
        with pytest.raises(PeError, match=r"rank_attention: RankParam has 11 rows, X's width \* MaxRank\^2 is 12"):
            registry.get(op).structured.meta({"MaxRank": 2}, dict(ins, **{"Out@GRAD": np.ones((2, 4))}), None)


def test_pyramid_hash_rule_decides_the_n_grams_kept_from_the_lod_and_the_seed():
    """The rule reads the LoD and the attributes, never the ids: the same layout for other ids, DropPos its draws;
    an X without LoD refused with the sequence ops' line."""
    attrs = dict(registry.get("pyramid_hash").default_attrs(), num_emb=4, space_len=10, rand_len=2)
    attrs.update(pyramid_layer=3, is_training=1, drop_out_percent=0.5, seed=3, use_filter=False)
    rule, w = registry.get("pyramid_hash").structured.meta, np.ones((12, 1), np.float32)
    ctx = KernelContext(lod={"X": [[0, 4, 5, 9]]})
    metas = [rule(attrs, {"X": rng.integers(0, 99, (9, 1)).astype(np.int32), "W": w}, ctx) for _ in range(2)]
    grams, keep, rows, lod = metas[0].args
    assert repr(metas[0]) == repr(metas[1])
    assert len(grams) == 5 + 0 + 5 and metas[0].outputs["DropPos"][0] == (10, 1)
    assert lod[-1] == len(rows) == max(int(keep[:5].sum()), 1) + 1 + max(int(keep[5:].sum()), 1)
    ids = {"X": np.arange(9, dtype=np.int32).reshape(9, 1), "W": w}
    outs, _ = _filled("pyramid_hash", ids, attrs, {"X": [[0, 4, 5, 9]]})
    assert outs["DropPos"].reshape(-1).tolist() == keep.tolist()
    with pytest.raises(PeError, match="input X has no LoD"):
        rule(attrs, ids, KernelContext())


def test_rank_attention_of_an_empty_batch_gives_empty_outputs():
    """N = 0: Out [0, P], InputHelp [0, MaxRank * C], InsRank [0, 1] (main failed on InputHelp's reshape) and a
    RankParam@GRAD of zeros."""
    ins = {"X": np.ones((0, 3)), "RankOffset": np.zeros((0, 5), np.int32), "RankParam": np.ones((12, 4))}
    outs, _ = _filled("rank_attention", ins, {"MaxRank": 2}, {})
    assert {k: v.shape for k, v in outs.items()} == {"Out": (0, 4), "InputHelp": (0, 6), "InsRank": (0, 1)}
    douts, _ = _filled("rank_attention_grad", dict(ins, **{"Out@GRAD": np.ones((0, 4))}), {"MaxRank": 2}, {})
    assert douts["RankParam@GRAD"].shape == (12, 4) and not douts["RankParam@GRAD"].any()


@pytest.mark.parametrize("op", ["batch_norm_grad_grad", "instance_norm_grad_grad"])
def test_norm_grad_grads_of_an_empty_batch_give_empty_outputs(op):
    """X [0, C, H, W]: DX and DDY empty, DScale [C] zeros (a sum over no values), where pe failed with numpy's
    reshape error. Paddle 2.6.2 refuses the forward of an empty batch (batch_norm: "Each dimension of input tensor is
    expected to be -1 or a positive number", instance_norm: "The Input variable X has not been initialized")."""
    x, c = np.zeros((0, 3, 2, 2), np.float32), np.ones(3, np.float32)
    stats = c if op == "batch_norm_grad_grad" else np.zeros(0, np.float32)
    ins = {"X": x, "Scale": c, "SavedMean": stats, "SavedVariance": stats, "DY": x, "DDX": x, "DDScale": c, "DDBias": c}
    outs = registry.get(op).kernel("cpu")(ins, registry.get(op).default_attrs())
    assert {k: (v.shape, v.dtype) for k, v in outs.items()} == {
        "DX": (x.shape, x.dtype),
        "DDY": (x.shape, x.dtype),
        "DScale": ((3,), x.dtype),
    }
    assert not outs["DScale"].any()
