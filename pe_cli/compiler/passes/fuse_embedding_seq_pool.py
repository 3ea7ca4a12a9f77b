"""The fuse_embedding_seq_pool pass (``BuildStrategy.fuse_embedding_seq_pool``, pe's own option): a
``lookup_table`` whose rows only a ``sequence_pool`` of type SUM reads becomes, with it, one
``fused_embedding_seq_pool`` op (Fluid 1.8's op, which ``fluid.contrib.fused_embedding_seq_pool``
builds; pe_cli/ops/sequence_fused.py), and in the backward part ``sequence_pool_grad`` and
``lookup_table_grad`` one ``fused_embedding_seq_pool_grad`` (a row-sparse gradient with
``is_sparse``): a sparse CTR model's slot is two ops a step instead of four, and the embedded rows
are never written out (nn.EmbeddingBag's form in PyTorch).

The fused kernels sum the same rows in the same order in float64 as sequence_pool does, so Out is
the same bits; the gradient's rows are the sequences' rows of Out@GRAD, as lookup_table_grad's
(sequence_pool_grad wrote 0 + g, so a -0.0 there is +0.0: equal values). Only where the two programs
compute alike: no padding_idx (the fused sparse gradient keeps a padding id's rows, as Fluid's,
which lookup_table_grad leaves out), pad_value 0, one LoD level (the pooled value has none), and a
training program only when both gradient ops are there to fuse.

A pass over the program, like fuse_bn_act.py: Program -> (a new Program, changes)."""

from ...ops.registry import GRAD_SUFFIX
from ...ops.fusion_patterns import FUSED_EMBEDDING_SEQ_POOL as FUSED, LOOKUP_TABLE, SEQUENCE_POOL, grad_type
from .rewrite import fuse_pairs, fused_op, op_name, writes_between

NAME = "fuse_embedding_seq_pool"


def fuse_embedding_seq_pool(program):
    """Program -> (Program, changes): a clone of ``program`` with each embedding and its sum fused."""
    return fuse_pairs(program, _forward_pairs, _fuse)


def _fuse(block, ops, readers, writers, i, j):
    lookup, pool = ops[i], ops[j]
    attrs = {"is_sparse": bool(lookup.attrs.get("is_sparse", False)), "padding_idx": -1, "combiner": "sum"}
    ins = {"W": lookup.input("W"), "Ids": lookup.input("Ids")}
    replace = {j: fused_op(block, FUSED, pool, ins, {"Out": pool.output("Out")}, attrs)}
    changes = [f"{op_name(lookup)} + {SEQUENCE_POOL} -> {FUSED} writing {pool.output('Out')[0]}"]
    grads = _backward_pair(ops, readers, writers, lookup, pool)
    if grads is None:
        return replace, {i}, changes
    k, m = grads
    pool_grad, lookup_grad = ops[k], ops[m]
    ins = dict(ins, **{"Out@GRAD": pool_grad.input("Out@GRAD")})
    replace[m] = fused_op(block, grad_type(FUSED), lookup_grad, ins, {"W@GRAD": lookup_grad.output("W@GRAD")}, attrs)
    changes.append(
        f"{grad_type(SEQUENCE_POOL)} + {grad_type(LOOKUP_TABLE)} -> {grad_type(FUSED)} writing "
        f"{lookup_grad.output('W@GRAD')[0]}"
    )
    return replace, {i, k}, changes


def _forward_pairs(ops, readers, writers):
    """[(index of lookup_table, index of its sequence_pool)] that can be fused: the pool (and, in a
    training program, its gradient op) is the only reader of the embedded rows, and nothing between
    them writes the table or the ids."""
    pairs = []
    for i, op in enumerate(ops):
        if op.type != LOOKUP_TABLE or not _plain_lookup(op):
            continue
        emb = op.output("Out")[0]
        pools = [n for n in readers[emb] if ops[n].type == SEQUENCE_POOL]
        others = [n for n in readers[emb] if n not in pools]
        if len(pools) != 1 or writers[emb] != [i] or _lod_levels(op) != 1:
            continue
        j = pools[0]
        if j < i or not _sum_pool(ops[j], emb) or _max_index_read(ops, readers, j):
            continue
        if others and (len(others) != 1 or _backward_pair(ops, readers, writers, op, ops[j]) is None):
            continue
        if writes_between(ops, i, j) & set(op.input_arg_names):
            continue
        pairs.append((i, j))
    return pairs


def _plain_lookup(op):
    names = op.input("Ids") + op.input("W") + op.output("Out")
    # (remote_prefetch and the other parameter-server attributes change nothing on pe's local table)
    return len(names) == 3 and op.attrs.get("padding_idx", -1) == -1 and not op.attrs.get("is_distributed")


def _lod_levels(op):
    var = op.block.vars.get(op.input("Ids")[0]) if op.block is not None else None
    return getattr(var, "lod_level", None)


def _sum_pool(op, emb):
    return (
        op.input("X") == [emb]
        and str(op.attrs.get("pooltype", "")).upper() == "SUM"
        and float(op.attrs.get("pad_value", 0.0)) == 0.0
        and len(op.output("Out")) == 1
    )


def _max_index_read(ops, readers, j):
    """Whether anything but the pool's gradient op reads its MaxIndex (a SUM pool's is -1s)."""
    return any(ops[n].type != grad_type(SEQUENCE_POOL) for name in ops[j].output("MaxIndex") for n in readers[name])


def _backward_pair(ops, readers, writers, lookup, pool):
    """(index of sequence_pool_grad, index of lookup_table_grad) to fuse, or None: the pool's
    gradient of the embedded rows has no other reader or writer, and both read what the forward ops
    read."""
    emb = lookup.output("Out")[0]
    d_emb = emb + GRAD_SUFFIX
    if len(writers[d_emb]) != 1 or len(readers[d_emb]) != 1:
        return None
    k, m = writers[d_emb][0], readers[d_emb][0]
    pool_grad, lookup_grad = ops[k], ops[m]
    if (
        pool_grad.type != grad_type(SEQUENCE_POOL)
        or lookup_grad.type != grad_type(LOOKUP_TABLE)
        or m < k
        or pool_grad.input("X") != [emb]
        or pool_grad.output("X@GRAD") != [d_emb]
        or lookup_grad.input("Out@GRAD") != [d_emb]
        or lookup_grad.input("W") != lookup.input("W")
        or lookup_grad.input("Ids") != lookup.input("Ids")
        or len(lookup_grad.output("W@GRAD")) != 1
        or bool(lookup_grad.attrs.get("is_sparse", False)) != bool(lookup.attrs.get("is_sparse", False))
        or str(pool_grad.attrs.get("pooltype", "")).upper() != "SUM"
    ):
        return None
    if writes_between(ops, k, m) & (set(lookup.input_arg_names) | set(pool_grad.input("Out@GRAD"))):
        return None
    return k, m
