"""ConfigError: a mistake in a YAML file or an override, printed as one line:

    configs/mnist.yaml:12:5: optimizer.learning_rate: expected a number, got 'fast'; write e.g. 0.01
"""
from ..errors import PeError, suggest  # noqa: F401 -- config modules take the hint rule from here


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
