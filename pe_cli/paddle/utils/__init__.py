"""``paddle.utils`` (Paddle 2.x): nested-structure helpers, ``unique_name`` and ``convert_to_list``,
the names Paddle 2.6's static tests use."""
from ...fluid import unique_name  # noqa: F401
from ...layers.utils import assert_same_structure, flatten, map_structure, pack_sequence_as  # noqa: F401

__all__ = ["assert_same_structure", "convert_to_list", "flatten", "map_structure", "pack_sequence_as", "unique_name"]


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
            raise ValueError(f"The {name}'s type must be a list or tuple of {n} {dtype}. Received: {value} "
                             f"including element {item} of type {type(item)}") from None
    return items
