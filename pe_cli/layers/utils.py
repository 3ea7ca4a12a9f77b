"""Nested structures, as Fluid's ``layers.utils``: lists, tuples (namedtuples too) and dicts (by sorted
key) of leaves. ``rnn``'s states, ``dynamic_decode``'s inputs and outputs and ``while_loop``'s
variables may be nested; these walk them."""
from ..base.errors import ArgumentValueError, PeError

__all__ = ["is_sequence", "flatten", "pack_sequence_as", "map_structure", "assert_same_structure"]


def is_sequence(x):
    return isinstance(x, (list, tuple, dict))


def _items(nest):
    return [nest[k] for k in sorted(nest)] if isinstance(nest, dict) else list(nest)


def flatten(nest):
    """The leaves of a nested structure, depth first."""
    if not is_sequence(nest):
        return [nest]
    return [leaf for item in _items(nest) for leaf in flatten(item)]


def _rebuild(like, items):
    if isinstance(like, dict):
        return type(like)(zip(sorted(like), items))
    if hasattr(like, "_fields"):                 # a namedtuple
        return type(like)(*items)
    return type(like)(items)


def pack_sequence_as(structure, flat):
    """``flat``'s leaves in ``structure``'s nesting."""
    flat = list(flat)
    if len(flatten(structure)) != len(flat):
        raise PeError(f"pack_sequence_as: the structure has {len(flatten(structure))} leaves, got {len(flat)}")

    def pack(s, pos):
        if not is_sequence(s):
            return flat[pos], pos + 1
        items = []
        for item in _items(s):
            value, pos = pack(item, pos)
            items.append(value)
        return _rebuild(s, items), pos
    return pack(structure, 0)[0]


def _describe(s):
    if isinstance(s, dict):
        return "{" + ", ".join(f"{k}: {_describe(s[k])}" for k in sorted(s)) + "}"
    return f"[{', '.join(_describe(x) for x in s)}]" if is_sequence(s) else "leaf"


def assert_same_structure(a, b, what="values"):
    """An ArgumentValueError (a ValueError, as Fluid's) unless ``a`` and ``b`` nest alike."""
    same = is_sequence(a) == is_sequence(b) and (not is_sequence(a) or (
        len(a) == len(b) and isinstance(a, dict) == isinstance(b, dict)
        and (not isinstance(a, dict) or sorted(a) == sorted(b))))
    if not same:
        raise ArgumentValueError(f"the {what} do not nest alike: {_describe(a)} vs {_describe(b)}")
    if is_sequence(a):
        for x, y in zip(_items(a), _items(b)):
            assert_same_structure(x, y, what)


def map_structure(fn, *structures):
    """``fn`` applied leaf by leaf to structures of the same nesting; the result keeps it."""
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    flat = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*leaves) for leaves in zip(*flat)])
