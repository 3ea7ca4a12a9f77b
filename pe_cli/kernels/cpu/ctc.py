"""CPU out-kernels of the CTC ops (ops/ctc.py; their meta rules: shapes/structured_prediction.py, fresh variants), numpy: ctc_align (``align`` works on host arrays and serves
the CUDA kernel too) and warpctc, the CTC forward-backward recursions in log space over the extended
label positions, a loop over time steps (``ctc`` works on host arrays and serves CUDA too)."""

import numpy as np

from ...base.errors import PeError
from ...shapes import structured_prediction as rules
from ..structured import adapter, fresh_outputs


def _keep(ids, starts, attrs):
    """Which steps survive: not blank and, with merge_repeated, not equal to the step before in
    the same sequence (``starts`` marks each sequence's first step)."""
    keep = ids != attrs["blank"]
    if attrs["merge_repeated"]:
        same = np.zeros(ids.shape, dtype=bool)
        same[1:] = ids[1:] == ids[:-1]
        keep &= ~(same & ~starts)
    return keep


def align(x, attrs, ctx, lengths=None):
    """ctc_align on host values: ({slot: array}, Output's LoD or None)."""
    x = np.asarray(x)
    if lengths is not None:
        n, t = x.shape
        lengths = np.asarray(lengths).reshape(-1).astype(np.int64)
        if lengths.size != n or (lengths < 0).any() or (lengths > t).any():
            raise PeError(
                f"ctc_align: InputLength {lengths.tolist()} must hold one length in [0, {t}] per row "
                f"of Input {list(x.shape)}"
            )
        valid = np.arange(t)[None, :] < lengths[:, None]
        starts = np.zeros((n, t), dtype=bool)
        starts[:, 0] = True
        keep = (_keep(x.reshape(-1), starts.reshape(-1), attrs).reshape(n, t)) & valid
        out = np.full((n, t), attrs["padding_value"], dtype=x.dtype)
        counts = keep.sum(axis=1)
        out[np.arange(t)[None, :] < counts[:, None]] = x[keep]
        return {"Output": out, "OutputLength": counts.astype(np.int64).reshape(n, 1)}, None
    lod = ctx.lod.get("Input")
    if not lod:
        raise PeError("ctc_align: Input has no LoD; feed sequences (a LoDTensor) or padded ids with InputLength")
    offs = np.asarray(lod[-1], dtype=np.int64)
    ids = x.reshape(-1)
    if offs[-1] != ids.size:
        raise PeError(f"ctc_align: Input's LoD ends at {int(offs[-1])} but it has {ids.size} rows")
    starts = np.zeros(ids.size, dtype=bool)
    starts[offs[:-1][offs[:-1] < ids.size]] = True
    keep = _keep(ids, starts, attrs)
    kept = np.concatenate([[0], np.cumsum(keep)])
    out_lod = [int(v) for v in kept[offs]]
    out = ids[keep].reshape(-1, 1)
    if out.shape[0] == 0:
        out = np.full((1, 1), -1, dtype=x.dtype)
    return {"Output": out}, [out_lod]


def ctc_align_out(ins, outs, attrs, meta, ctx):
    results, lod = align(ins["Input"], attrs, ctx, ins.get("InputLength"))
    if lod is not None:
        ctx.set_lod_map({"Output": lod})
    fresh_outputs(results, ins, outs, meta)


# -- warpctc ----------------------------------------------------------------------------------------


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def _lse(*terms):
    """log(sum(exp(terms))), elementwise; -inf where every term is -inf."""
    m = np.maximum.reduce(terms)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(m), safe + np.log(sum(np.exp(t - safe) for t in terms)), -np.inf)


def sequence_loss(z, labels, blank):
    """(loss, d loss / d z) of one sequence: z [T, C] logits, labels the target ids."""
    t_len, classes = z.shape
    lp = _log_softmax(z.astype(np.float64))
    ext = np.full(2 * len(labels) + 1, blank, dtype=np.int64)
    ext[1::2] = labels
    s_len = ext.size
    skip = np.zeros(s_len, dtype=bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    emit = lp[:, ext]  # [T, S]
    neg = np.full(s_len, -np.inf)
    alpha = np.full((t_len, s_len), -np.inf)
    if t_len:
        alpha[0, : min(2, s_len)] = emit[0, : min(2, s_len)]
    for t in range(1, t_len):
        prev = alpha[t - 1]
        one = np.concatenate([[-np.inf], prev[:-1]])
        two = np.where(skip, np.concatenate([[-np.inf, -np.inf], prev[:-2]]), neg)
        alpha[t] = _lse(prev, one, two) + emit[t]
    beta = np.full((t_len, s_len), -np.inf)
    if t_len:
        beta[-1, max(s_len - 2, 0) :] = emit[-1, max(s_len - 2, 0) :]
    skip_next = np.zeros(s_len, dtype=bool)
    skip_next[:-2] = skip[2:]
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1]
        one = np.concatenate([nxt[1:], [-np.inf]])
        two = np.where(skip_next, np.concatenate([nxt[2:], [-np.inf, -np.inf]]), neg)
        beta[t] = _lse(nxt, one, two) + emit[t]
    log_p = _lse(alpha[-1, -1], alpha[-1, -2]) if t_len and s_len > 1 else (alpha[-1, -1] if t_len else -np.inf)
    if not np.isfinite(log_p):  # no alignment: Fluid 1.8's warp-ctc gives a loss of 0 (and no gradient)
        return 0.0, np.zeros_like(z, dtype=np.float64)
    post = np.exp(alpha + beta - emit - log_p)  # [T, S]
    gamma = np.zeros((t_len, classes))
    np.add.at(gamma.T, ext, post.T)
    return -float(log_p), np.exp(lp) - gamma


def _sequences(ins, attrs, ctx):
    """[(logits [T, C], labels)] per sequence, and where each sequence's rows sit in Logits."""
    logits, label = np.asarray(ins["Logits"]), np.asarray(ins["Label"])
    if "LogitsLength" in ins:
        t_lens = np.asarray(ins["LogitsLength"]).reshape(-1).astype(np.int64)
        l_lens = np.asarray(ins["LabelLength"]).reshape(-1).astype(np.int64)
        if (t_lens > logits.shape[0]).any() or (l_lens > label.shape[1]).any():
            raise PeError(
                f"warpctc: lengths {t_lens.tolist()} / {l_lens.tolist()} exceed the padded Logits "
                f"{list(logits.shape)} / Label {list(label.shape)}"
            )
        return [(logits[:t, b], label[b, :n]) for b, (t, n) in enumerate(zip(t_lens, l_lens))], None
    lods = ctx.lod
    if not lods.get("Logits") or not lods.get("Label"):
        raise PeError("warpctc: Logits and Label need a LoD (sequences), or pass LogitsLength and LabelLength")
    t_offs = np.asarray(lods["Logits"][-1], dtype=np.int64)
    l_offs = np.asarray(lods["Label"][-1], dtype=np.int64)
    if t_offs.size != l_offs.size:
        raise PeError(f"warpctc: {t_offs.size - 1} logit sequences but {l_offs.size - 1} label sequences")
    ids = label.reshape(-1)
    return [(logits[t_offs[i] : t_offs[i + 1]], ids[l_offs[i] : l_offs[i + 1]]) for i in range(t_offs.size - 1)], t_offs


def ctc(ins, attrs, ctx):
    """(WarpCTCGrad like Logits, Loss [sequences, 1]) on host arrays."""
    logits = np.asarray(ins["Logits"])
    seqs, t_offs = _sequences(ins, attrs, ctx)
    grad = np.zeros(logits.shape, dtype=np.float64)
    loss = np.zeros((len(seqs), 1))
    classes = logits.shape[-1]
    for i, (z, labels) in enumerate(seqs):
        if len(labels) and (np.min(labels) < 0 or np.max(labels) >= classes):
            raise PeError(
                f"warpctc: sequence {i}'s labels {np.asarray(labels).tolist()} fall outside the {classes} classes"
            )
        loss[i, 0], g = sequence_loss(z, np.asarray(labels, dtype=np.int64), attrs["blank"])
        if attrs["norm_by_times"] and len(z):
            g = g / len(z)
        if t_offs is None:
            grad[: len(z), i] = g
        else:
            grad[t_offs[i] : t_offs[i + 1]] = g
    return grad.astype(logits.dtype), loss.astype(logits.dtype)


def warpctc_out(ins, outs, attrs, meta, ctx):
    grad, loss = ctc(ins, attrs, ctx)
    fresh_outputs({"WarpCTCGrad": grad, "Loss": loss}, ins, outs, meta)


def scale_rows(grad, dloss, ins, ctx):
    """Logits@GRAD: each sequence's rows of WarpCTCGrad times its Loss@GRAD."""
    d = np.asarray(dloss).reshape(-1)
    if "LogitsLength" in ins:
        return grad * d[None, :, None]
    offs = np.asarray((ctx.lod.get("Logits") or [[0, grad.shape[0]]])[-1], dtype=np.int64)
    return grad * np.repeat(d, np.diff(offs))[:, None]


def warpctc_grad_out(ins, outs, attrs, meta, ctx):
    grad = ins["WarpCTCGrad"]
    dx = scale_rows(grad, ins["Loss@GRAD"], ins, ctx).astype(grad.dtype, copy=False)
    fresh_outputs({"Logits@GRAD": dx}, ins, outs, meta)


# (the sequences: the call's LoD or the length tensors' values; ctc_align sets Output's LoD)
ctc_align_out.takes_context = warpctc_out.takes_context = warpctc_grad_out.takes_context = True

# the ops' kernels by name, the two above: CUDA's host fallbacks run them (kernels/cuda/ctc.py's HOST_OPS)
ctc_align = adapter(rules.ctc_align_meta, ctc_align_out, "ctc_align")
warpctc = adapter(rules.warpctc_meta, warpctc_out, "warpctc")
warpctc_grad = adapter(rules.warpctc_grad_meta, warpctc_grad_out, "warpctc_grad")
