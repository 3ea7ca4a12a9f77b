"""CPU out-kernels of ops/tree_conv.py (numpy; meta rules: shapes/convolution_irregular.py): each tree's patches
become a coefficient array C [nodes, max_nodes, 3] (C[u, v] = (eta_l, eta_r, eta_t) of v in u's patch), so a tree's
patch matrix is one einsum and the gradients are its transposes, written into the buffers handed. The trees follow
EdgeSet's values, so their checks are the out-kernels' (a node outside the tree, a tree larger than NodesVector)."""

import numpy as np

from ..structured import adapter
from ...base.errors import PeError
from ...shapes import convolution_irregular as rules


def _children(edges, max_nodes):
    """(node count, children per 1-based node id) of one tree, as Fluid's construct_tree reads it."""
    pairs = [(int(u), int(v)) for u, v in edges]
    count = sum(1 for u, v in pairs if u and v) + 1
    children = [[] for _ in range(count + 1)]
    for u, v in pairs:
        if not (u and v):
            break
        if not (0 < u <= count and 0 < v <= count):
            raise PeError(f"tree_conv: edge ({u}, {v}) names a node outside 1..{count}")
        children[u].append(v)
    if count > max_nodes:
        raise PeError(f"tree_conv: a tree of {count} nodes, but NodesVector holds {max_nodes} per tree")
    return count, children


def _etas(index, siblings, depth, max_depth):
    eta_t = (max_depth - depth) / max_depth
    eta_l = (1 - eta_t) * (0.5 if siblings == 1 else (index - 1.0) / (siblings - 1.0))
    return eta_l, (1 - eta_t) * (1 - eta_l), eta_t


def _patch(root, children, max_depth):
    """[(node, index among siblings (1-based), sibling count, depth)] of root's patch (Fluid's
    construct_patch: a depth-first walk, depth below max_depth)."""
    patch, stack, visited = [(root, 1, 1, 0)], [(root, 0)], {root}
    while stack:
        node, depth = stack[-1]
        pushed = False
        for i, v in enumerate(children[node]):
            if v not in visited and depth + 1 < max_depth:
                visited.add(v)
                stack.append((v, depth + 1))
                patch.append((v, i + 1, len(children[node]), depth + 1))
                pushed = True
        if not pushed:
            stack.pop()
    return patch


def coefficients(edges, max_nodes, max_depth, dtype):
    """C [node count, max_nodes, 3] of one tree."""
    count, children = _children(edges, max_nodes)
    coef = np.zeros((count, max_nodes, 3), dtype=dtype)
    for u in range(1, count + 1):
        for v, index, siblings, depth in _patch(u, children, max_depth):
            coef[u - 1, v - 1] += _etas(index, siblings, depth, max_depth)
    return coef


def _trees(ins, attrs):
    x, filt = ins["NodesVector"], ins["Filter"]
    w = filt.reshape(filt.shape[0] * 3, -1)
    for b in range(x.shape[0]):
        coef = coefficients(ins["EdgeSet"][b], x.shape[1], attrs["max_depth"], x.dtype)
        patch = np.einsum("uvk,vf->ufk", coef, x[b]).reshape(coef.shape[0], -1)  # column f * 3 + k
        yield b, coef, patch, w


def tree_conv_out(ins, outs, attrs, meta):
    x, filt = ins["NodesVector"], ins["Filter"]
    out = outs["Out"].reshape(x.shape[0], x.shape[1], filt.shape[2] * filt.shape[3])
    out.fill(0)  # (zero past each tree's nodes)
    for b, coef, patch, w in _trees(ins, attrs):
        out[b, : coef.shape[0]] = patch @ w


def tree_conv_grad_out(ins, outs, attrs, meta):
    x, filt = ins["NodesVector"], ins["Filter"]
    dout = ins["Out@GRAD"].reshape(x.shape[0], x.shape[1], -1)
    dx, dw = outs.get("NodesVector@GRAD"), outs.get("Filter@GRAD")
    if dx is not None:
        dx.fill(0)
    if dw is not None:
        dw = dw.reshape(filt.shape[0] * 3, dout.shape[2])
        dw.fill(0)
    for b, coef, patch, w in _trees(ins, attrs):
        g = dout[b, : coef.shape[0]]
        if dw is not None:
            dw += patch.T @ g
        if dx is not None:
            dx[b] = np.einsum("uvk,ufk->vf", coef, (g @ w.T).reshape(coef.shape[0], x.shape[2], 3))


# the kernels by name CUDA's kernels are given (kernels/cuda/tree_conv.py's HOST_OPS): the adapters
tree_conv = adapter(rules.tree_conv_meta, tree_conv_out, "tree_conv")
tree_conv_grad = adapter(rules.tree_conv_grad_meta, tree_conv_grad_out, "tree_conv_grad")
