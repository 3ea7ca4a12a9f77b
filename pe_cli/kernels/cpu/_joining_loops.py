"""numba loops of the joining ops' planned launches (joining.py): each input of concat copied into its block of
columns of Out, and each part cut back out of one (concat's gradient, split), every array seen as [rows, columns]:
the dims before the axis, and the rest flattened. Plain copies: numpy's bits."""

from numba import njit

from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@njit(cache=True, nogil=True)
def put_columns(src, dst, start):
    """dst[i, start : start + src.shape[1]] = src[i] for each row i: src [rows, w], dst [rows, W]."""
    for i in range(src.shape[0]):
        s = src[i]
        d = dst[i]
        for j in range(s.shape[0]):
            d[start + j] = s[j]


@njit(cache=True, nogil=True)
def take_columns(src, dst, start):
    """dst[i] = src[i, start : start + dst.shape[1]] for each row i: src [rows, W], dst [rows, w]."""
    for i in range(dst.shape[0]):
        s = src[i]
        d = dst[i]
        for j in range(d.shape[0]):
            d[j] = s[start + j]
