"""numba loops of libstdc++'s std::sort, std::partial_sort and std::nth_element (imported on first use: see
runtime/loops.py) over rows of (value, index) pairs compared by value alone, as Paddle's CPU argsort, top_k_v2,
kthvalue and top_k run them: introsort (median of three to the front, the unguarded partition, heap sort below
the depth limit) down to runs of 16, then the insertion sort; heap select and sort_heap; introselect. Where
equal values meet, the order they leave is these algorithms', which no stable rule gives. The same steps as
tests/kernels/stl_order.py's (the plain-Python reference tests/kernels/test_stl_sort_loop.py holds them to), in arrays: ``v`` the values, ``ix``
the indices moved with them; ``mode`` the comparator: LARGEST (NaN first, then larger values: argsort's
descending, top_k_v2's largest), SMALLEST (smaller values, NaN last), GREATER (the top_k op's ``l > r``)."""

import numpy as np

from ._conv_loops import _jit


SMALLEST, LARGEST, GREATER = 0, 1, 2


@_jit
def _before(l, r, largest):
    if largest == LARGEST:
        return (l != l and r == r) or l > r
    if largest == SMALLEST:
        return (l == l and r != r) or l < r
    return l > r


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
def _heap_select(v, ix, first, middle, last, largest):
    """__heap_select: [first, middle) a heap of the best, each later value that goes before its top replacing it."""
    n = middle - first
    if n >= 2:
        for parent in range((n - 2) // 2, -1, -1):
            _adjust_heap(v, ix, first, parent, n, v[first + parent], ix[first + parent], largest)
    for i in range(middle, last):
        if _before(v[i], v[first], largest):
            val, vi = v[i], ix[i]
            v[i], ix[i] = v[first], ix[first]
            _adjust_heap(v, ix, first, 0, n, val, vi, largest)


@_jit
def _sort_heap(v, ix, first, last, largest):
    while last - first > 1:
        last -= 1
        val, vi = v[last], ix[last]
        v[last], ix[last] = v[first], ix[first]
        _adjust_heap(v, ix, first, 0, last - first, val, vi, largest)


@_jit
def _partial_sort(v, ix, first, middle, last, largest):
    _heap_select(v, ix, first, middle, last, largest)
    _sort_heap(v, ix, first, middle, largest)


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
def _sort(v, ix, start, end, largest):
    """std::sort of [start, end): __introsort_loop (its recursion on the right part as a stack: the parts are
    disjoint, so the order they are done in changes nothing), then __final_insertion_sort."""
    if end - start < 2:
        return
    stack = np.empty((2 * 64 + 2, 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = start, end, 2 * _lg(end - start)
    top = 1
    while top:
        top -= 1
        first, last, depth = stack[top, 0], stack[top, 1], stack[top, 2]
        while last - first > 16:
            if depth == 0:
                _partial_sort(v, ix, first, last, last, largest)
                break
            depth -= 1
            cut = _partition_pivot(v, ix, first, last, largest)
            stack[top, 0], stack[top, 1], stack[top, 2] = cut, last, depth
            top += 1
            last = cut
    if end - start > 16:
        _insertion_sort(v, ix, start, start + 16, largest)
        for i in range(start + 16, end):
            _linear_insert(v, ix, i, largest)
    else:
        _insertion_sort(v, ix, start, end, largest)


@_jit
def _nth_element(v, ix, first, nth, last, largest):
    """__introselect: partitions until the part holding ``nth`` has at most 3 values, then the insertion sort;
    below the depth limit, heap select of [first, nth] and the top swapped to nth."""
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(v, ix, first, nth + 1, last, largest)
            _swap(v, ix, first, nth)
            return
        depth -= 1
        cut = _partition_pivot(v, ix, first, last, largest)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, ix, first, last, largest)


@_jit
def _lg(n):
    """floor(log2(n)) of n >= 1 (libstdc++'s __lg)."""
    count = 0
    while n > 1:
        n >>= 1
        count += 1
    return count


@_jit
def sort_rows(rows, largest, out):
    """out[r] = the indices of rows[r] in std::sort's order; rows [R, N]."""
    for r in range(rows.shape[0]):
        v = rows[r].copy()
        ix = out[r]
        for j in range(v.shape[0]):
            ix[j] = j
        _sort(v, ix, 0, v.shape[0], largest)


@_jit
def partial_sort_rows(rows, k, largest, out):
    """out[r] = the first k indices of rows[r] after std::partial_sort (the top_k op's); out [R, k]."""
    for r in range(rows.shape[0]):
        v = rows[r].copy()
        ix = np.arange(v.shape[0])
        _partial_sort(v, ix, 0, k, v.shape[0], largest)
        out[r, :] = ix[:k]


@_jit
def top_k_v2_rows(rows, k, largest, sort_first, out):
    """out[r] = the first k indices of rows[r] after Paddle's FullTopK / getKthvalue: std::partial_sort where
    k * 64 is below the row's length, else std::nth_element at k - 1 and (``sort_first``) std::sort of the k - 1
    before it; out [R, k]."""
    n = rows.shape[1]
    for r in range(rows.shape[0]):
        v = rows[r].copy()
        ix = np.arange(n)
        if k * 64 < n:
            _partial_sort(v, ix, 0, k, n, largest)
        elif k > 0:
            _nth_element(v, ix, 0, k - 1, n, largest)
            if sort_first:
                _sort(v, ix, 0, k - 1, largest)
        out[r, :] = ix[:k]
