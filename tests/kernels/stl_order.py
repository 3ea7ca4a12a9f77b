"""libstdc++'s std::partial_sort, std::nth_element and std::sort, step for step, in plain Python over a list of
(value, index) pairs compared by value alone: where equal values meet, the order they leave is the algorithm's,
and a kernel whose reference (Paddle's CPU top_k_v2, kthvalue, argsort, top_k) runs them gives indices only this
order reproduces. The reference pe's numba loops (pe_cli/kernels/cpu/_stl_sort_loops.py) are held to
(tests/kernels/test_stl_sort_loop.py); this and they against Paddle 2.6.2: tests/data/paddle_oracle/edges26.json.
``comp(l, r)``: whether value l goes before value r."""


def _lg(n):
    return n.bit_length() - 1


def _adjust_heap(a, first, hole, n, value, comp):
    """__adjust_heap then __push_heap, the heap at a[first:first + n]."""
    top, child = hole, hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if comp(a[first + child][0], a[first + child - 1][0]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and comp(a[first + parent][0], value[0]):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_select(a, first, middle, last, comp):
    n = middle - first
    if n >= 2:
        for parent in range((n - 2) // 2, -1, -1):
            _adjust_heap(a, first, parent, n, a[first + parent], comp)
    for i in range(middle, last):
        if comp(a[i][0], a[first][0]):
            value, a[i] = a[i], a[first]
            _adjust_heap(a, first, 0, n, value, comp)


def _sort_heap(a, first, last, comp):
    while last - first > 1:
        last -= 1
        value, a[last] = a[last], a[first]
        _adjust_heap(a, first, 0, last - first, value, comp)


def partial_sort(a, first, middle, last, comp):
    _heap_select(a, first, middle, last, comp)
    _sort_heap(a, first, middle, comp)


def _median_to_first(a, result, x, y, z, comp):
    def c(i, j):
        return comp(a[i][0], a[j][0])

    if c(x, y):
        pick = y if c(y, z) else z if c(x, z) else x
    else:
        pick = x if c(x, z) else z if c(y, z) else y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a, first, last, pivot, comp):
    while True:
        while comp(a[first][0], a[pivot][0]):
            first += 1
        last -= 1
        while comp(a[pivot][0], a[last][0]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _partition_pivot(a, first, last, comp):
    _median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1, comp)
    return _unguarded_partition(a, first + 1, last, first, comp)


def _linear_insert(a, last, comp):
    value = a[last]
    while comp(value[0], a[last - 1][0]):
        a[last] = a[last - 1]
        last -= 1
    a[last] = value


def _insertion_sort(a, first, last, comp):
    for i in range(first + 1, last):
        if comp(a[i][0], a[first][0]):
            value = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i, comp)


def nth_element(a, first, nth, last, comp):
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, comp)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, comp)


def _introsort_loop(a, first, last, depth, comp):
    while last - first > 16:
        if depth == 0:
            partial_sort(a, first, last, last, comp)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, comp)
        _introsort_loop(a, cut, last, depth, comp)
        last = cut


def sort(a, first, last, comp):
    if first == last:
        return
    _introsort_loop(a, first, last, 2 * _lg(last - first), comp)
    if last - first > 16:
        _insertion_sort(a, first, first + 16, comp)
        for i in range(first + 16, last):
            _linear_insert(a, i, comp)
    else:
        _insertion_sort(a, first, last, comp)


# -- Paddle's CPU kernels over rows of (value, index) pairs ---------------------------------------------------


def paddle_comp(kind):
    """The comparators of Paddle's CPU kernels: "largest" (top_k_v2's, argsort's descending: NaN first, then
    larger values), "smallest" (top_k_v2's smallest, kthvalue's, argsort's ascending: smaller values, NaN
    last), "greater" (the top_k op's ``l > r``: NaN never goes first)."""
    if kind == "largest":
        return lambda l, r: (l != l and r == r) or l > r
    if kind == "smallest":
        return lambda l, r: (l == l and r != r) or l < r
    return lambda l, r: l > r


def top_k_v2_row(values, k, comp, sort_first=True):
    """The (value, index) pairs of one row after Paddle's FullTopK / getKthvalue: std::partial_sort of the first
    k where k * 64 < the row's length, else std::nth_element at k - 1 (and, ``sort_first``, std::sort of the
    k - 1 before it)."""
    a = [(v, i) for i, v in enumerate(values)]
    if k * 64 < len(a):
        partial_sort(a, 0, k, len(a), comp)
    elif k > 0:
        nth_element(a, 0, k - 1, len(a), comp)
        if sort_first:
            sort(a, 0, k - 1, comp)
    return a


def sorted_row(values, comp):
    """The indices of one row after std::sort of its (value, index) pairs (Paddle's argsort)."""
    a = [(v, i) for i, v in enumerate(values)]
    sort(a, 0, len(a), comp)
    return [i for _, i in a]


def partial_sorted_row(values, k, comp):
    """The indices of the first k of one row after std::partial_sort (the top_k op's)."""
    a = [(v, i) for i, v in enumerate(values)]
    partial_sort(a, 0, k, len(a), comp)
    return [i for _, i in a[:k]]
