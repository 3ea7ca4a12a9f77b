"""Op cases for scaled_dot_product_attention (pe_cli/ops/attention.py): the forward against numpy (the
unfused chain's formulas: per (sample, head) softmax(alpha q k^T + mask) v, the shifted logits
clipped at -64), its gradient op against float64 finite differences of Out (Weights gets no
gradient). float32's exponentials are a polynomial within 2 ulp of numpy's: its case's tolerance is
float32 rounding (rtol 1e-6 on values of order 1, a few ulp)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(79)


def _heads(x):
    return np.swapaxes(x, 1, 2)


def _ref(i, a):
    q, k, v = (_heads(i[s].astype(np.float64)) for s in ("Q", "K", "V"))
    scores = a.get("alpha", 1.0) * q @ np.swapaxes(k, -1, -2)
    if "Mask" in i:
        scores = scores + i["Mask"]
    e = np.exp(np.maximum(scores - scores.max(axis=-1, keepdims=True), -64.0))
    w = e / e.sum(axis=-1, keepdims=True)
    dt = i["Q"].dtype
    return {"Out": np.ascontiguousarray(_heads(w @ v)).astype(dt), "Weights": w.astype(dt)}


def _qkv(batch, sq, sk, heads, dh, dtype=np.float64):
    return {
        "Q": rng.normal(size=(batch, sq, heads, dh)).astype(dtype),
        "K": rng.normal(size=(batch, sk, heads, dh)).astype(dtype),
        "V": rng.normal(size=(batch, sk, heads, dh)).astype(dtype),
    }


def _case(name, inputs, grad=("Q", "K", "V"), **kw):
    return OpCase(
        "scaled_dot_product_attention",
        inputs,
        _ref,
        outputs=("Out", "Weights"),
        loss_outputs=("Out",),
        grad=grad,
        name=f"scaled_dot_product_attention_{name}",
        **kw,
    )


# a padding mask as the layers build it: -1e9 after each sample's length ([batch, 1, 1, Sk])
_PAD = np.where(np.arange(5)[None, None, None, :] < np.array([5, 3])[:, None, None, None], 0.0, -1e9)
# a [Sq, Sk] causal mask, broadcast over samples and heads
_CAUSAL = np.triu(np.full((4, 4), -1e9), 1)

CASES = [
    _case("alpha", _qkv(2, 3, 3, 2, 4), attrs={"alpha": 0.5}),
    _case("cross_padding", dict(_qkv(2, 3, 5, 2, 2), Mask=_PAD), attrs={"alpha": 0.7}),
    _case("causal", dict(_qkv(1, 4, 4, 3, 2), Mask=_CAUSAL)),
    # float32 on the BLAS path and the polynomial exponentials; rows wider than a vector
    _case("float32", _qkv(3, 9, 11, 2, 8, np.float32), grad=(), attrs={"alpha": 0.25}, rtol=2e-6, atol=1e-7),
]
