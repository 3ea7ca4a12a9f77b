"""What config/ hands the build (pe_cli/run/build.py): the values of a model file and a run config,
checked and typed, each with the document and key path it was written at, so that the build only
builds and reports a builder's failure at the YAML key to fix without calling back into config/.

- ``Ref``: a layer argument naming a feed or an earlier layer's output (``conv``, ``both[1]``).
- ``Typed``: a ``{type: Name, args}`` value (initializer, regularizer, gradient clip, learning-rate
  schedule) or a layer's ParamAttr: the callable found, its arguments checked (``Typed`` among them
  for the values nested in it). The build calls it: a schedule appends ops to the program being
  built, and each build gets objects of its own.
- ``OptimizerSpec``: the optimizer's class and its arguments, defaults filled, the learning rate a
  float or a ``Typed`` schedule.
"""

import re
from dataclasses import dataclass

REF_PATTERN = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-]*)(?:\[(\d+)\])?$")


def parse_ref(ref):
    """'conv[1]' -> ('conv', 1); 'fc1' -> ('fc1', None): a reference to a feed or layer output."""
    m = REF_PATTERN.match(ref)
    return m.group(1), None if m.group(2) is None else int(m.group(2))


@dataclass(frozen=True)
class Ref:
    name: str  # the feed or layer
    index: int = None  # which output of a multi-output layer, or None
    text: str = ""  # as written ('both[1]')

    @classmethod
    def of(cls, text):
        name, index = parse_ref(text)
        return cls(name, index, text)


def refs(value):
    """A reference argument as the build takes it: a Ref, or a list of them."""
    return [Ref.of(v) for v in value] if isinstance(value, list) else Ref.of(value)


@dataclass
class Typed:
    what: str  # "initializer", "learning-rate schedule", "ParamAttr", ...
    name: str  # the callable's name as pe lists it
    fn: object  # the class or function to call
    args: dict  # its keyword arguments: YAML values, or Typed (and lists of them) for nested values
    doc: object  # the YAML document, for an error of the build
    path: tuple  # the value's key path in it


@dataclass
class OptimizerSpec:
    name: str
    cls: object
    kwargs: dict  # learning_rate a float or a Typed schedule; regularization, grad_clip Typed or None
    doc: object
    path: tuple = ("optimizer",)
