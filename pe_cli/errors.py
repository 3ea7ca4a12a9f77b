"""Errors users see. Each carries enough context to be printed as one line."""
import difflib


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


def closest(name, choices):
    """'did you mean ...' text for a misspelt name, or the list of valid names when none is close."""
    choices = sorted(set(str(c) for c in choices))
    match = difflib.get_close_matches(str(name), choices, n=1, cutoff=0.6)
    if match:
        return f"did you mean '{match[0]}'?"
    if len(choices) <= 12:
        return "valid: " + ", ".join(choices)
    return f"valid: {', '.join(choices[:12])}, ... ({len(choices)} in all)"
