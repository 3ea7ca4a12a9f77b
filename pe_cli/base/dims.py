"""Sizes of shapes and how messages print them: the product of dims, known or not. Shapes are
sequences of ints; at build time a dim may be unknown (-1 or None). A leaf: imports nothing of pe."""


def numel(dims):
    """The product of ``dims`` (1 for no dims); every dim must be known."""
    n = 1
    for d in dims:
        n *= d
    return n


def known_numel(dims):
    """The product of ``dims``, or -1 when any dim is unknown (-1 or None)."""
    n = 1
    for d in dims:
        if d is None or d < 0:
            return -1
        n *= d
    return n


def is_known(dims):
    return all(d is not None and d >= 0 for d in dims)


def fmt_shape(shape):
    """``[2, ?, 4]``: a shape as messages print it, unknown dims as ``?``."""
    return "[" + ", ".join("?" if d is None else str(d) for d in (shape or ())) + "]"
