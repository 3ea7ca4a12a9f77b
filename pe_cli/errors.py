"""Errors users see. Each carries enough context to be printed as one line."""


class PeError(Exception):
    """Base class: a mistake in the user's program, config or data, explained in one line."""


class ShapeError(PeError):
    """A layer was given inputs whose shapes cannot work together."""


class FeedError(PeError):
    """A missing feed, or a fed value of the wrong shape or dtype."""


class OpError(PeError):
    """An op failed while running; names the op, its device and where it was built."""

    def __init__(self, message, op=None, device=None):
        super().__init__(message)
        self.op = op
        self.device = device
