"""Op cases for warprnnt (ops/transducer.py): the loss against a sum over every alignment of the
lattice, enumerated (T blanks and U labels, the last move a blank), and warprnntgrad against each
transition's share of the alignments through it (label transitions' times 1 + fastemit_lambda);
the input's gradient by finite differences (FastEmit off: with it on the gradient is not a derivative;
tests/paddle/test_paddle_oracle.py checks it against Paddle 2.6.2)."""

import itertools

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(89)


def _enumerated(i, a):
    x, label = i["input"], i["label"]
    loss, grad = np.zeros(x.shape[0]), np.zeros(x.shape)
    for b in range(x.shape[0]):
        t_len, u_len = int(i["input_lengths"][b]), int(i["label_lengths"][b])
        paths = []
        for labels_at in itertools.combinations(range(t_len + u_len - 1), u_len):
            t = u = 0
            total, used = 0.0, []
            for move in range(t_len + u_len):
                k = label[b, u] if move in labels_at else a["blank"]
                total += x[b, t, u, k]
                used.append((t, u, k, 1.0 + a.get("fastemit_lambda", 0.0) if move in labels_at else 1.0))
                u, t = (u + 1, t) if move in labels_at else (u, t + 1)
            paths.append((total, used))
        loss[b] = -np.logaddexp.reduce([p for p, _ in paths])
        for total, used in paths:
            for t, u, k, scale in used:
                grad[b, t, u, k] -= scale * np.exp(total + loss[b])
    return {"warprnntgrad": grad, "loss": loss}


def _inputs(b, t, u, v):
    logits = rng.normal(size=(b, t, u + 1, v))
    return {
        "input": logits - np.log(np.exp(logits).sum(-1, keepdims=True)),  # log-probabilities
        "label": rng.integers(1, v, (b, u)).astype(np.int32),
        "input_lengths": np.array([t] + [max(1, t - 1 - k % 2) for k in range(b - 1)], np.int32),
        "label_lengths": np.array([u] + [max(0, u - 1 - k % 2) for k in range(b - 1)], np.int32),
    }


CASES = [
    OpCase("warprnnt", _inputs(3, 4, 3, 5), _enumerated, grad=("input",), loss_outputs=("loss",)),
    OpCase(
        "warprnnt",
        dict(_inputs(2, 3, 2, 4), label=np.array([[0, 1], [2, 0]], np.int32)),
        _enumerated,
        attrs={"blank": 3},
        grad=("input",),
        loss_outputs=("loss",),
        name="warprnnt_blank_last",
    ),
    OpCase("warprnnt", _inputs(2, 3, 2, 4), _enumerated, attrs={"fastemit_lambda": 0.5}, name="warprnnt_fastemit"),
]
