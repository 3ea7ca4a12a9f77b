"""ConfigError: a mistake in a YAML file or an override, printed as one line:

    configs/mnist.yaml:12:5: optimizer.learning_rate: expected a number, got 'fast'; write e.g. 0.01

ConfigErrors: the mistakes one pass over a file found, a line each (the first MAX_SHOWN).
"""

from ..base.errors import PeError, suggest  # noqa: F401 -- config modules take the hint rule from here


class ConfigError(PeError):
    def __init__(self, message, mark=None, path=None, hint=None):
        self.message = message
        self.mark = mark  # Mark(file, line, col) or None
        self.path = path  # "layers[3].fc1.act" or None
        self.hint = hint  # what to do
        super().__init__(self.line())

    def line(self):
        where = f"{self.mark}: " if self.mark is not None else ""
        path = f"{self.path}: " if self.path else ""
        hint = f"; {self.hint}" if self.hint else ""
        return f"{where}{path}{self.message}{hint}"

    def __str__(self):
        return self.line()


MAX_SHOWN = 20


class ConfigErrors(ConfigError):
    """Several mistakes found in one pass over a file; the first stands for them all as a
    ConfigError (message, mark, path, hint), and ``line()`` lists up to MAX_SHOWN of them."""

    def __init__(self, errors):
        self.errors = sorted(errors, key=_place)  # in the order of the file
        first = self.errors[0]
        super().__init__(first.message, first.mark, first.path, first.hint)

    def line(self):
        lines = [e.line() for e in self.errors[:MAX_SHOWN]]
        if len(self.errors) > MAX_SHOWN:
            lines.append(f"... and {len(self.errors) - MAX_SHOWN} more mistakes")
        return "\n".join(lines)


def collected(errors):
    """Raises what ``errors`` (ConfigErrors flattened) holds: nothing, one error, or all of them."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ConfigErrors(errors)


def flatten(error):
    return list(getattr(error, "errors", [error]))


def _place(error):
    mark = error.mark
    return (getattr(mark, "file", ""), getattr(mark, "line", 0), getattr(mark, "col", 0))
