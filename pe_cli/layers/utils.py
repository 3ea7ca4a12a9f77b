"""Nested structures, as Fluid's ``layers.utils``: lists, tuples (namedtuples too) and dicts (by sorted
key) of leaves. ``rnn``'s states, ``dynamic_decode``'s inputs and outputs and ``while_loop``'s
variables may be nested; these walk them. The other names of Fluid's module are here too:
``convert_to_list`` (an argument's number or numbers as a list), ``hold_mutable_vars`` and
``copy_mutable_vars``, the checks of data_feeder, LayerHelper, and the modules it imports."""

from __future__ import print_function  # noqa: F401 -- one of Fluid's names of this module

import collections  # noqa: F401
import copy

import numpy as np  # noqa: F401

from ..base.dtypes import convert_dtype  # noqa: F401
from ..base.errors import ArgumentValueError, PeError, optional_module
from ..framework.variable import Variable  # noqa: F401
from .checks import check_dtype, check_type, check_variable_and_dtype  # noqa: F401
from .helper import LayerHelper  # noqa: F401

__all__ = ["is_sequence", "flatten", "pack_sequence_as", "map_structure", "assert_same_structure"]
six = optional_module("six")


def is_sequence(x):
    return isinstance(x, (list, tuple, dict))


def _items(nest):
    return [nest[k] for k in sorted(nest)] if isinstance(nest, dict) else list(nest)


def flatten(nest):
    """The leaves of a nested structure, depth first."""
    if not is_sequence(nest):
        return [nest]
    return [leaf for item in _items(nest) for leaf in flatten(item)]


def rebuild(like, items):
    if isinstance(like, dict):
        return type(like)(zip(sorted(like), items))
    if hasattr(like, "_fields"):  # a namedtuple
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
        return rebuild(s, items), pos

    return pack(structure, 0)[0]


def _describe(s):
    if isinstance(s, dict):
        return "{" + ", ".join(f"{k}: {_describe(s[k])}" for k in sorted(s)) + "}"
    return f"[{', '.join(_describe(x) for x in s)}]" if is_sequence(s) else "leaf"


def assert_same_structure(a, b, what="values"):
    """An ArgumentValueError (a ValueError, as Fluid's) unless ``a`` and ``b`` nest alike."""
    same = is_sequence(a) == is_sequence(b) and (
        not is_sequence(a)
        or (
            len(a) == len(b)
            and isinstance(a, dict) == isinstance(b, dict)
            and (not isinstance(a, dict) or sorted(a) == sorted(b))
        )
    )
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


def convert_to_list(value, n, name, dtype=int):
    """``value`` (one number, or ``n`` of them) as a list of ``n`` ``dtype`` values; a ValueError
    naming ``name`` otherwise (Paddle's argument normaliser for kernel sizes, strides, paddings)."""
    if isinstance(value, dtype):
        return [value] * n
    try:
        items = list(value)
    except TypeError:
        raise ValueError(f"The {name}'s type must be list or tuple. Received: {value}") from None
    if len(items) != n:
        raise ValueError(f"The {name}'s length must be {n}. Received: {value}")
    for item in items:
        try:
            dtype(item)
        except (ValueError, TypeError):
            raise ValueError(
                f"The {name}'s type must be a list or tuple of {n} {dtype}. Received: {value} "
                f"including element {item} of type {type(item)}"
            ) from None
    return items


def hold_mutable_vars(structure):
    """True when an item of ``structure`` is itself a list, tuple or dict."""
    return any(is_sequence(s) for s in structure)


def copy_mutable_vars(structure):
    """``structure`` rebuilt with new lists, tuples and dicts around the same leaves."""
    return pack_sequence_as(structure, copy.copy(flatten(structure)))
