"""ConfigError: a mistake in a YAML file or an override, printed as one line:

    configs/mnist.yaml:12:5: optimizer.learning_rate: expected a number, got 'fast'; write e.g. 0.01
"""
import difflib

from ..errors import PeError


class ConfigError(PeError):
    def __init__(self, message, mark=None, path=None, hint=None):
        self.message = message
        self.mark = mark          # Mark(file, line, col) or None
        self.path = path          # "layers[3].fc1.act" or None
        self.hint = hint          # what to do
        super().__init__(self.line())

    def line(self):
        where = f"{self.mark}: " if self.mark is not None else ""
        path = f"{self.path}: " if self.path else ""
        hint = f"; {self.hint}" if self.hint else ""
        return f"{where}{path}{self.message}{hint}"

    def __str__(self):
        return self.line()


def closest(name, choices):
    """'did you mean ...' text for a misspelt name, or the list of valid names when none is close."""
    choices = sorted(set(str(c) for c in choices))
    match = difflib.get_close_matches(str(name), choices, n=1, cutoff=0.6)
    if match:
        return f"did you mean '{match[0]}'?"
    if len(choices) <= 12:
        return "valid: " + ", ".join(choices)
    return f"valid: {', '.join(choices[:12])}, ... ({len(choices)} in all)"
