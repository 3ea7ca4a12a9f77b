"""The CUDA matrix product's split-K path (pe_cli/kernels/cuda/_matmul.py): a product with few
output tiles and a long K (a convolution's filter gradient) sums slices of K in separate blocks and
adds the partials; it gives numpy's product, transposed operands and batches included."""

import numpy as np
import pytest

from pe_cli.kernels.cuda import _matmul
from pe_cli.kernels.cuda import runtime as rt


def test_a_long_k_over_few_tiles_is_split_and_a_wide_product_is_not():
    assert _matmul.split_k(1, 64 * _matmul.K_SLICE)[0] > 1
    assert _matmul.split_k(_matmul.TARGET_BLOCKS, 64 * _matmul.K_SLICE) == (1, 64 * _matmul.K_SLICE)
    assert _matmul.split_k(1, _matmul.K_SLICE) == (1, _matmul.K_SLICE)
    for blocks, K in ((1, 10_000), (3, 25_600), (1, 200_704)):
        splits, kc = _matmul.split_k(blocks, K)
        assert (splits - 1) * kc < K <= splits * kc and kc % _matmul.BK == 0


@pytest.mark.parametrize("trans_a,trans_b", [(False, True), (True, False), (False, False)])
def test_split_k_product_matches_numpy(trans_a, trans_b):
    rng = np.random.default_rng(0)
    M, N, K = 3, 5, 7 * _matmul.K_SLICE + 5
    a = rng.standard_normal((K, M) if trans_a else (M, K))
    b = rng.standard_normal((N, K) if trans_b else (K, N))
    assert _matmul.split_k(1, K)[0] > 1
    with rt.device(0):
        got = rt.to_host(_matmul.matmul(rt.to_device(a), rt.to_device(b), trans_a, trans_b, alpha=0.5))
    want = 0.5 * (a.T if trans_a else a) @ (b.T if trans_b else b)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
