"""The RNN-T (transducer) loss over one sequence, written once as scalar Python: kernels/cpu/
_transducer_loops.py compiles it with numba's njit and kernels/cuda/transducer.py with cuda.jit as a
device function (one thread per sequence), so both devices run the same arithmetic.

x [B, T, U + 1, V] holds log-probabilities (as Paddle's warprnnt takes them: no softmax is applied);
for sequence b with T steps and U labels, alpha[t, u] is the log-probability of emitting the first u
labels by step t, beta[t, u] that of finishing from (t, u); -beta[0, 0] is the loss. The gradient of
the loss wrt x (written into grad, zeros elsewhere) is minus each transition's posterior; FastEmit
multiplies the label transitions' by 1 + fastemit_lambda (the loss itself is unchanged)."""

import math

NEG_INF = -math.inf


def rnnt_sequence(x, label, b, t_len, u_len, blank, fastemit_lambda, alpha, beta, grad):
    """Sequence b's loss (-log p(label | x)); its gradient wrt x into grad[b] (which starts at zeros).
    Self-contained (no calls): numba compiles it for both devices."""
    for t in range(t_len):  # alpha, forward
        for u in range(u_len + 1):
            if t == 0 and u == 0:
                alpha[b, 0, 0] = 0.0
                continue
            p = alpha[b, t - 1, u] + x[b, t - 1, u, blank] if t > 0 else NEG_INF
            q = alpha[b, t, u - 1] + x[b, t, u - 1, label[b, u - 1]] if u > 0 else NEG_INF
            m = max(p, q)
            alpha[b, t, u] = m if m == NEG_INF else m + math.log(math.exp(p - m) + math.exp(q - m))
    for t in range(t_len - 1, -1, -1):  # beta, backward
        for u in range(u_len, -1, -1):
            if t == t_len - 1 and u == u_len:
                beta[b, t, u] = x[b, t, u, blank]
                continue
            p = beta[b, t + 1, u] + x[b, t, u, blank] if t < t_len - 1 else NEG_INF
            q = beta[b, t, u + 1] + x[b, t, u, label[b, u]] if u < u_len else NEG_INF
            m = max(p, q)
            beta[b, t, u] = m if m == NEG_INF else m + math.log(math.exp(p - m) + math.exp(q - m))
    ll = beta[b, 0, 0]
    if ll == NEG_INF:
        return math.inf
    for t in range(t_len):  # minus each transition's posterior
        for u in range(u_len + 1):
            common = alpha[b, t, u] - ll
            if t == t_len - 1 and u == u_len:
                grad[b, t, u, blank] = -math.exp(common + x[b, t, u, blank])
            elif t < t_len - 1:
                grad[b, t, u, blank] = -math.exp(common + beta[b, t + 1, u] + x[b, t, u, blank])
            if u < u_len:
                k = label[b, u]
                grad[b, t, u, k] = -(1.0 + fastemit_lambda) * math.exp(common + beta[b, t, u + 1] + x[b, t, u, k])
    return -ll
