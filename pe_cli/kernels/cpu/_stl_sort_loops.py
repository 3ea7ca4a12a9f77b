"""numba loop of libstdc++'s std::sort (imported on first use: see runtime/loops.py) over rows of (value, index)
pairs compared by value alone, as Paddle's CPU argsort runs it: introsort (median of three to the front, the
unguarded partition, heap sort below the depth limit) down to runs of 16, then the insertion sort. Where equal
values meet, the order they leave is this algorithm's, which no stable rule gives (a row longer than 16). The
same steps as _stl_order.py's sort (which tests/kernels/test_stl_sort_loop.py holds it to), in arrays: ``v`` the
values, ``ix`` the indices moved with them; ``largest``: NaN first, then larger values (argsort's descending),
else smaller values, NaN last."""

import numpy as np

from ._conv_loops import _jit


@_jit
def _before(l, r, largest):
    if largest:
        return (l != l and r == r) or l > r
    return (l == l and r != r) or l < r


@_jit
def _adjust_heap(v, ix, first, hole, n, val, vi, largest):
    """__adjust_heap then __push_heap, the heap at [first, first + n)."""
    top, child = hole, hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if _before(v[first + child], v[first + child - 1], largest):
            child -= 1
        v[first + hole], ix[first + hole] = v[first + child], ix[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole], ix[first + hole] = v[first + child - 1], ix[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _before(v[first + parent], val, largest):
        v[first + hole], ix[first + hole] = v[first + parent], ix[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole], ix[first + hole] = val, vi


@_jit
def _heap_sort(v, ix, first, last, largest):
    """std::partial_sort(first, last, last): heap select over the whole range, then sort_heap."""
    n = last - first
    if n >= 2:
        for parent in range((n - 2) // 2, -1, -1):
            _adjust_heap(v, ix, first, parent, n, v[first + parent], ix[first + parent], largest)
    while last - first > 1:
        last -= 1
        val, vi = v[last], ix[last]
        v[last], ix[last] = v[first], ix[first]
        _adjust_heap(v, ix, first, 0, last - first, val, vi, largest)


@_jit
def _swap(v, ix, i, j):
    v[i], v[j] = v[j], v[i]
    ix[i], ix[j] = ix[j], ix[i]


@_jit
def _partition_pivot(v, ix, first, last, largest):
    """__move_median_to_first of (first + 1, middle, last - 1) into first, then __unguarded_partition."""
    x, y, z = first + 1, first + (last - first) // 2, last - 1
    if _before(v[x], v[y], largest):
        pick = y if _before(v[y], v[z], largest) else z if _before(v[x], v[z], largest) else x
    else:
        pick = x if _before(v[x], v[z], largest) else z if _before(v[y], v[z], largest) else y
    _swap(v, ix, first, pick)
    lo, hi = first + 1, last
    while True:
        while _before(v[lo], v[first], largest):
            lo += 1
        hi -= 1
        while _before(v[first], v[hi], largest):
            hi -= 1
        if not lo < hi:
            return lo
        _swap(v, ix, lo, hi)
        lo += 1


@_jit
def _linear_insert(v, ix, last, largest):
    val, vi = v[last], ix[last]
    while _before(val, v[last - 1], largest):
        v[last], ix[last] = v[last - 1], ix[last - 1]
        last -= 1
    v[last], ix[last] = val, vi


@_jit
def _insertion_sort(v, ix, first, last, largest):
    for i in range(first + 1, last):
        if _before(v[i], v[first], largest):
            val, vi = v[i], ix[i]
            for j in range(i, first, -1):
                v[j], ix[j] = v[j - 1], ix[j - 1]
            v[first], ix[first] = val, vi
        else:
            _linear_insert(v, ix, i, largest)


@_jit
def _sort(v, ix, largest):
    """std::sort of the whole row: __introsort_loop (its recursion on the right part as a stack: the parts are
    disjoint, so the order they are done in changes nothing), then __final_insertion_sort."""
    n = v.shape[0]
    if n < 2:
        return
    stack = np.empty((2 * 64 + 2, 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, n, 2 * (63 - _leading_zeros(n))
    top = 1
    while top:
        top -= 1
        first, last, depth = stack[top, 0], stack[top, 1], stack[top, 2]
        while last - first > 16:
            if depth == 0:
                _heap_sort(v, ix, first, last, largest)
                break
            depth -= 1
            cut = _partition_pivot(v, ix, first, last, largest)
            stack[top, 0], stack[top, 1], stack[top, 2] = cut, last, depth
            top += 1
            last = cut
    if n > 16:
        _insertion_sort(v, ix, 0, 16, largest)
        for i in range(16, n):
            _linear_insert(v, ix, i, largest)
    else:
        _insertion_sort(v, ix, 0, n, largest)


@_jit
def _leading_zeros(n):
    count = 0
    bit = np.int64(1) << 62
    while bit and not n & bit:
        count += 1
        bit >>= 1
    return count + 1


@_jit
def sort_rows(rows, largest, out):
    """out[r] = the indices of rows[r] in std::sort's order; rows [R, N]."""
    for r in range(rows.shape[0]):
        v = rows[r].copy()
        ix = out[r]
        for j in range(v.shape[0]):
            ix[j] = j
        _sort(v, ix, largest)
