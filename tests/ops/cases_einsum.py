"""Op cases for family einsum: np.einsum forward and finite-difference gradients of every operand
(a matmul, a batched contraction with an output order, ellipses that broadcast a dim of 1, a trace
and a diagonal, a label only one operand has, the implicit output, a full contraction)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(13)


def _case(equation, *shapes, name):
    ops = [rng.normal(size=s) for s in shapes]
    return OpCase(
        "einsum",
        {"Operands": ops},
        lambda i, a: {
            "Out": np.asarray(np.einsum(a["equation"], *i["Operands"])).reshape(
                np.einsum(a["equation"], *i["Operands"]).shape or (1,)
            )
        },
        attrs={"equation": equation},
        grad=("Operands",),
        name=name,
    )


CASES = [
    _case("ij,jk->ik", (3, 4), (4, 2), name="einsum_matmul"),
    _case("ibnd,jbnd->bnij", (3, 2, 2, 4), (2, 2, 2, 4), name="einsum_attention"),
    _case("...ik,...j", (2, 3, 2, 4), (1, 3, 5), name="einsum_ellipsis_broadcast"),
    _case("ii->i", (3, 3), name="einsum_diagonal"),
    _case("ii", (3, 3), name="einsum_trace"),
    _case("ij,k->i", (2, 3), (4,), name="einsum_label_of_one_operand"),
    _case("ijk,ikj", (2, 3, 4), (2, 4, 3), name="einsum_full_contraction"),
]
