"""The fuse_attention pass (``BuildStrategy.fuse_attention``, pe's option): the attention chain the
attention layers build (pe_cli/layers/attention.py, and Fluid 1.x Transformers' own) becomes one
``scaled_dot_product_attention`` op (pe_cli/ops/attention.py), and its gradient ops one
``scaled_dot_product_attention_grad``:

    transpose2(Q4), transpose2(K4), transpose2(V4)   [batch, seq, heads, head_dim] -> [.., heads, seq, ..]
    (scale by alpha) -> matmul_v2 (trans_y) or matmul (transpose_Y, its alpha) -> (elementwise_add Mask)
    -> softmax -> matmul_v2 / matmul by V -> transpose2 back

each transpose2 by axis [0, 2, 1, 3]. The fused op reads Q4, K4, V4 where the projections wrote them:
no transposed copies, forward or backward. The mask gets no gradient (the pass leaves a chain whose
mask has one). The chain fuses only where nothing else reads the values the fused ops no longer
compute (the heads' transposes, the scores, the product by V), and either no gradient op reads them
or the chain's gradient ops all fuse too; the softmax's output is the fused op's Weights and stays.
With a dropout between softmax and the product by V the chain is left as it is.

The numbers: the products, the softmax and its gradient as the ops compute them, but alpha applied
by the GEMM (the same numbers where alpha is a power of 2, as 1 / sqrt(head_dim) for head_dim 4, 16,
64, ...) and, in float32, the softmax's exponentials by a polynomial within 2 ulp of numpy's
(pe_cli/kernels/cpu/_attention_loops.py): within float32 rounding of the unfused chain."""

from ...ops.fusion_patterns import CHAIN, CHAIN_GRADS, SDPA, SDPA_GRAD
from .rewrite import fused_op, read_elsewhere, removable, rewritten, uses

NAME = "fuse_attention"
_HEADS = [0, 2, 1, 3]
_PRODUCTS = CHAIN["products"]


def fuse_attention(program):
    """Program -> (Program, changes): a clone of ``program`` with its attention chains fused (in every block)."""
    found = {}
    for block in program.blocks:
        ops = block.ops
        readers, writers = uses(ops)
        elsewhere = read_elsewhere(program, block) if len(program.blocks) > 1 else set()
        chains = [
            c
            for c in (_chain(ops, readers, writers, i) for i in range(len(ops)) if ops[i].type == CHAIN["weights"])
            if c is not None and removable(block, c["gone"], elsewhere)
        ]
        if chains:
            found[block.idx] = chains
    if not found:
        return program, []
    changes = []

    def make(block):
        ops, replace, drop = program.blocks[block.idx].ops, {}, set()
        for c in found[block.idx]:
            at = max(c["forward"])
            replace[at] = fused_op(
                block, SDPA, ops[at], c["ins"], {"Out": [c["out"]], "Weights": [c["weights"]]}, {"alpha": c["alpha"]}
            )
            drop.update(set(c["forward"]) - {at})
            changes.append(f"{len(c['forward'])} ops -> {SDPA} writing {c['out']}")
            if c["backward"]:
                at = min(c["backward"])
                grad_ins = {
                    "Q": c["ins"]["Q"],
                    "K": c["ins"]["K"],
                    "V": c["ins"]["V"],
                    "Weights": [c["weights"]],
                    "Out@GRAD": [c["d_out"]],
                }
                replace[at] = fused_op(block, SDPA_GRAD, ops[at], grad_ins, c["grads"], {"alpha": c["alpha"]})
                drop.update(set(c["backward"]) - {at})
                changes.append(
                    f"{len(c['backward'])} ops -> {SDPA_GRAD} writing "
                    f"{', '.join(n for names in c['grads'].values() for n in names)}"
                )
        return replace, drop

    return rewritten(program, make, sorted(found)), changes


def _one(names):
    return names[0] if len(names) == 1 else None


def _only_writer(ops, writers, name, types):
    """The index of the op of one of ``types`` that alone writes ``name``, or None."""
    w = writers.get(name, [])
    return w[0] if len(w) == 1 and ops[w[0]].type in types else None


def _heads_transpose(ops, writers, name):
    """The index of the transpose2 by [0, 2, 1, 3] of a 4-D value that alone writes ``name``, or None."""
    t = _only_writer(ops, writers, name, (CHAIN["heads"],))
    if t is None or list(ops[t].attrs.get("axis", ())) != _HEADS or _one(ops[t].input("X")) is None:
        return None
    x = ops[t].block.var(ops[t].input("X")[0])
    return t if x.shape is not None and len(x.shape) == 4 else None


def _product_alpha(op, trans_y):
    """A product op's alpha where it is a plain product of two stacks (Y transposed where ``trans_y``), or None."""
    if op.type == _PRODUCTS[0]:
        ok = not op.attrs.get("trans_x", False) and bool(op.attrs.get("trans_y", False)) == trans_y
        return 1.0 if ok else None
    ok = (
        not op.attrs.get("transpose_X", False)
        and bool(op.attrs.get("transpose_Y", False)) == trans_y
        and op.attrs.get("head_number", 1) == 1
        and not op.attrs.get("fused_reshape_Out")
        and not op.attrs.get("fused_transpose_Out")
    )
    return float(op.attrs.get("alpha", 1.0)) if ok else None


def _chain(ops, readers, writers, s):
    """The attention chain around the softmax ``ops[s]`` as a dict (forward and backward op indices, the
    fused ops' slots, the values no longer computed), or None where it does not fuse."""
    f = _forward(ops, readers, writers, s)
    if f is None:
        return None
    backward = _backward(ops, readers, writers, f)
    if backward is None:
        return None
    f.update(backward)
    dropped = set(f["forward"]) | set(f["backward"])
    # nothing but the fused ops reads what they no longer compute
    if any(r not in dropped for name in f["gone"] for r in readers.get(name, [])):
        return None
    # the forward op runs where the chain's last op ran: an op kept between reads nothing the chain writes and
    # writes nothing a chain op before it read; the gradient op where its chain began: an op kept between
    # writes nothing a chain op after it reads or writes
    for group, late in ((f["forward"], True), (f["backward"], False)):
        written = {n for i in group for n in ops[i].output_arg_names}
        for i in range(min(group, default=0) + 1, max(group, default=0)):
            if i in group:
                continue
            side = [j for j in group if (j < i) == late]
            if (
                set(ops[i].output_arg_names) & ({n for j in side for n in ops[j].input_arg_names} | written)
                or late
                and set(ops[i].input_arg_names) & written
            ):
                return None
    return f


def _scores(ops, writers, sm):
    """From the softmax ``sm`` back to the product of Q and K^T, through an optional mask add: (the
    softmax's input, its output, the product, the add, the mask), add and mask None without one; None
    where the chain is not an attention's."""
    x, w = _one(sm.input("X")), _one(sm.output("Out"))
    if x is None or w is None or sm.attrs.get("axis", -1) not in (-1, 3):
        return None
    p = _only_writer(ops, writers, x, (CHAIN["mask"],) + _PRODUCTS)
    add = mask = None
    if p is not None and ops[p].type == CHAIN["mask"]:
        add, mask = p, _one(ops[p].input("Y"))
        if ops[add].attrs.get("axis", -1) != -1 or mask is None:
            return None
        p = _only_writer(ops, writers, _one(ops[add].input("X")), _PRODUCTS)
    if p is None:
        return None
    return x, w, p, add, mask


def _forward(ops, readers, writers, s):
    found = _scores(ops, writers, ops[s])
    if found is None:
        return None
    x, w, p, add, mask = found
    alpha, qs, kt = _product_alpha(ops[p], True), _one(ops[p].input("X")), _one(ops[p].input("Y"))
    sc = _only_writer(ops, writers, qs, (CHAIN["scale"],))
    if sc is not None and ops[sc].attrs.get("bias", 0.0) == 0.0:
        alpha, qt = None if alpha is None else alpha * float(ops[sc].attrs.get("scale", 1.0)), _one(ops[sc].input("X"))
    else:
        sc, qt = None, qs
    seconds = [r for r in readers.get(w, []) if ops[r].type in _PRODUCTS and ops[r].input("X") == [w]]
    if alpha is None or len(seconds) != 1 or _product_alpha(ops[seconds[0]], False) != 1.0:
        return None
    m2 = seconds[0]
    vt, o = _one(ops[m2].input("Y")), _one(ops[m2].output("Out"))
    t_out = readers.get(o, [])
    tq, tk, tv = (_heads_transpose(ops, writers, n) for n in (qt, kt, vt))
    if (
        None in (tq, tk, tv)
        or len({tq, tk, tv}) != 3
        or len(t_out) != 1
        or ops[t_out[0]].type != CHAIN["heads"]
        or list(ops[t_out[0]].attrs.get("axis", ())) != _HEADS
    ):
        return None
    to = t_out[0]
    forward = [i for i in (tq, tk, tv, sc, p, add, s, m2, to) if i is not None]
    gone = (
        [qt, kt, vt, _one(ops[p].output("Out")), o]
        + ([qs] if sc is not None else [])
        + ([x] if add is not None else [])
        + [n for i in (tq, tk, tv, to) for n in ops[i].output("XShape")]
    )
    ins = {"Q": ops[tq].input("X"), "K": ops[tk].input("X"), "V": ops[tv].input("X")}
    if add is not None:
        ins["Mask"] = [mask]
    return {
        "forward": forward,
        "gone": gone,
        "ins": ins,
        "alpha": alpha,
        "weights": w,
        "out": _one(ops[to].output("Out")),
        "ops": {
            "tq": tq,
            "tk": tk,
            "tv": tv,
            "sc": sc,
            "p": p,
            "add": add,
            "m2": m2,
            "to": to,
            "qs": qs,
            "kt": kt,
            "vt": vt,
        },
    }


def _next(ops, readers, writers, name, type, **slots):
    """The index of the one op reading ``name`` (written once), of ``type`` with the slots ``slots``
    ({slot: [names]}), or None."""
    r = readers.get(name, [])
    if name is None or len(r) != 1 or len(writers.get(name, [])) != 1 or ops[r[0]].type != type:
        return None
    op = ops[r[0]]
    return r[0] if all(op.input(k) == v for k, v in slots.items()) else None


def _backward(ops, readers, writers, f):
    """{"backward": the gradient ops' indices, "grads": the fused gradient op's outputs, "d_out"}, with
    the gradients between them added to f["gone"]; no gradient ops: an empty list; None where they do not fuse."""
    c = f["ops"]
    xs = ops[c["to"]].output("XShape")
    first = [r for r in readers.get(_one(xs), []) if ops[r].type == CHAIN_GRADS["heads"]]
    if not first:
        return {"backward": [], "grads": {}, "d_out": None}
    tg = first[0]
    d_out, d_o = _one(ops[tg].input("Out@GRAD")), _one(ops[tg].output("X@GRAD"))
    w, m2, p = f["weights"], ops[c["m2"]], ops[c["p"]]
    m2g = _next(ops, readers, writers, d_o, CHAIN_GRADS["product"], X=[w], Y=m2.input("Y"))
    if m2g is None or d_out is None:
        return None
    d_w, d_vt = _one(ops[m2g].output("X@GRAD")), _one(ops[m2g].output("Y@GRAD"))
    smg = _next(ops, readers, writers, d_w, CHAIN_GRADS["weights"], Out=[w])
    if smg is None:
        return None
    d_p = d_x = _one(ops[smg].output("X@GRAD"))
    ag = None
    if c["add"] is not None:
        add = ops[c["add"]]
        ag = _next(ops, readers, writers, d_x, CHAIN_GRADS["mask"], X=add.input("X"), Y=add.input("Y"))
        if ag is None or ops[ag].output("Y@GRAD"):
            return None
        d_p = _one(ops[ag].output("X@GRAD"))
    m1g = _next(ops, readers, writers, d_p, CHAIN_GRADS["product"], X=p.input("X"), Y=p.input("Y"))
    if m1g is None:
        return None
    d_qt, d_kt = _one(ops[m1g].output("X@GRAD")), _one(ops[m1g].output("Y@GRAD"))
    d_qs, scg = d_qt, None
    if c["sc"] is not None:
        scg = _next(ops, readers, writers, d_qs, CHAIN_GRADS["scale"], X=[d_qs])
        if (
            scg is None
            or ops[scg].attrs.get("scale") != ops[c["sc"]].attrs.get("scale")
            or ops[scg].attrs.get("bias", 0.0) != 0.0
        ):
            return None
        d_qt = _one(ops[scg].output("Out"))
    heads = [
        _next(ops, readers, writers, d, CHAIN_GRADS["heads"], XShape=ops[c[t]].output("XShape"))
        for d, t in ((d_qt, "tq"), (d_kt, "tk"), (d_vt, "tv"))
    ]
    if None in heads:
        return None
    f["gone"] += [d_o, d_w, d_x, d_p, d_qs, d_qt, d_kt, d_vt]
    grads = {slot: ops[h].output("X@GRAD") for slot, h in zip(("Q@GRAD", "K@GRAD", "V@GRAD"), heads)}
    backward = [i for i in (tg, m2g, smg, ag, m1g, scg, *heads) if i is not None]
    return {"backward": backward, "grads": grads, "d_out": d_out}
