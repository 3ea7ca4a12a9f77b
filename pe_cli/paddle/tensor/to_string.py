"""``paddle.tensor.to_string``: Paddle 2.x's print options of its (dygraph) Tensors. pe's static
Variables print their description and fetched values are numpy arrays, so the options are checked and
kept (``DEFAULT_PRINT_OPTIONS``) but print nothing differently, as Paddle's static Variables."""

from ...layers.checks import check_type

__all__ = ["set_printoptions"]


class _PrintOptions:
    precision = 8
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = False


DEFAULT_PRINT_OPTIONS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None):
    """Sets the options given (ints; sci_mode a bool), as Paddle's."""
    for name, value, kind in (
        ("precision", precision, int),
        ("threshold", threshold, int),
        ("edgeitems", edgeitems, int),
        ("linewidth", linewidth, int),
        ("sci_mode", sci_mode, bool),
    ):
        if value is not None:
            check_type(value, name, kind, "set_printoptions")
            setattr(DEFAULT_PRINT_OPTIONS, name, value)
