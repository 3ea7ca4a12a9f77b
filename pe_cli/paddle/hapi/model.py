"""``paddle.hapi.model``: ``to_list``, the helper Paddle's tests and callbacks import from here, and the
``Model`` stand-in (``paddle.Model``, one line: not in pe)."""

from ..device import stand_ins

Model = stand_ins()["Model"]


def to_list(value):
    """None as None, a list or tuple as a list, anything else as a list of it (Paddle's ``to_list``)."""
    if value is None:
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]
