"""pool2d with adaptive=True (adaptive_pool2d): Out is ksize big, window i along a dim of size n
spanning floor(i * n / k) to ceil((i + 1) * n / k). numpy over the windows (adaptive outputs are
small: 1x1 to 7x7 in practice); the window bounds are shared with the CUDA kernels."""

import numpy as np


def windows(n, k):
    """(starts, ends) of the k adaptive windows over a dim of size n."""
    i = np.arange(k, dtype=np.int64)
    return (i * n) // k, -((-(i + 1) * n) // k)


def pool2d(ins, attrs):
    x = ins["X"]
    (hs, he), (ws, we) = windows(x.shape[2], attrs["ksize"][0]), windows(x.shape[3], attrs["ksize"][1])
    out = np.empty(x.shape[:2] + (hs.size, ws.size), dtype=x.dtype)
    reduce = np.max if attrs["pooling_type"] == "max" else np.mean
    for i in range(hs.size):
        for j in range(ws.size):
            out[:, :, i, j] = reduce(x[:, :, hs[i] : he[i], ws[j] : we[j]], axis=(2, 3))
    return {"Out": out}


def pool2d_grad(ins, attrs):
    """Max: each window's gradient goes to its first maximum; avg: spread evenly. Overlapping
    windows add up."""
    x, dout = ins["X"], ins["Out@GRAD"]
    (hs, he), (ws, we) = windows(x.shape[2], attrs["ksize"][0]), windows(x.shape[3], attrs["ksize"][1])
    dx = np.zeros(x.shape, dtype=x.dtype)
    n, c = x.shape[:2]
    for i in range(hs.size):
        for j in range(ws.size):
            win = (slice(None), slice(None), slice(hs[i], he[i]), slice(ws[j], we[j]))
            d = dout[:, :, i, j]
            if attrs["pooling_type"] == "max":
                flat = x[win].reshape(n, c, -1)
                first = np.zeros(flat.shape, dtype=x.dtype)
                np.put_along_axis(first, flat.argmax(axis=2)[:, :, None], d[:, :, None], axis=2)
                dx[win] += first.reshape(x[win].shape)
            else:
                dx[win] += (d / ((he[i] - hs[i]) * (we[j] - ws[j])))[:, :, None, None]
    return {"X@GRAD": dx}
