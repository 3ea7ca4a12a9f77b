"""``paddle.utils`` (Paddle 2.x): nested-structure helpers, ``unique_name`` and ``convert_to_list``,
the names Paddle 2.6's static tests use; Fluid 1.8's ``Ploter`` (plot.py) and its other modules
(image_util, preprocess_img, preprocess_util, profiler)."""

import functools
import warnings

from ...fluid import unique_name  # noqa: F401
from ...framework.program import Block
from ...layers.utils import assert_same_structure, convert_to_list, flatten, map_structure, pack_sequence_as  # noqa: F401
from .plot import Ploter  # noqa: F401

__all__ = [
    "assert_same_structure",
    "convert_to_list",
    "deprecated",
    "flatten",
    "get_inputs_outputs_in_block",
    "map_structure",
    "pack_sequence_as",
    "unique_name",
    "Ploter",
]


def get_inputs_outputs_in_block(block):
    """The names a sub-block's ops read (first set) and write (second set) that the block itself
    does not hold: the variables it takes from and gives to its parent blocks (Paddle 2.6's)."""
    assert isinstance(block, Block), "input non-Block argument for get_inputs_outputs_in_block."
    assert block.parent_idx != -1, "input block should be a sub-block, not main block."
    inputs, outputs = set(), set()
    for op in block.ops:
        inputs.update(n for n in op.input_arg_names if not block.has_var(n))
        outputs.update(n for n in op.output_arg_names if not block.has_var(n))
    return inputs, outputs


def deprecated(update_to="", since="", reason="", level=0):
    """Paddle's decorator marking an API deprecated: a call warns (DeprecationWarning) naming what to
    use instead; ``level`` 2 makes a call a RuntimeError, as Paddle's."""

    def decorator(func):
        message = (
            f'API "{func.__module__}.{func.__name__}" is deprecated'
            + (f" since {since}" if since else "")
            + (f', and will be removed in future versions. Please use "{update_to}" instead.' if update_to else ".")
            + (f"\n    Reason: {reason}" if reason else "")
        )

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(message)
            warnings.warn(message, category=DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapper

    return decorator
