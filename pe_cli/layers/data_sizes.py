"""Which layer functions' sizes the data decides, and through which layers the rule traces
(pe_cli/config/sizes.py applies them to a model file; docs/CONFIG.md, "Sizes from the data").

- ``SLOTS``: layer function -> where its data-decided size is: the argument, the item of a list
  argument (embedding's ``[rows, width]``), the rule (``ids``: rows for every id of a vocabulary;
  ``classes``: one output per class) and, for ``ids``, the argument naming the ids.
- ``CLASS_LAYERS``: layer function -> (the argument taking logits or probabilities, the label's).
- ``KEEP_IDS``: layers whose output holds their input's ids (the ids' vocabulary still applies).
- ``KEEP_CLASSES``: layers whose output keeps their input's class axis.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    argument: str  # the layer function's argument holding the size
    index: int  # the item of a list argument, or None
    rule: str  # "ids" or "classes"
    source: str = None  # ids: the argument naming the ids


SLOTS = {
    "embedding": Slot("size", 0, "ids", "input"),
    "Embedding": Slot("num_embeddings", None, "ids", "x"),
    "fc": Slot("size", None, "classes"),
    "Linear": Slot("out_features", None, "classes"),
}
CLASS_LAYERS = {
    "softmax_with_cross_entropy": ("logits", "label"),
    "cross_entropy": ("input", "label"),
    "accuracy": ("input", "label"),
}
KEEP_IDS = frozenset(
    {
        "reshape",
        "reshape2",
        "squeeze",
        "squeeze2",
        "unsqueeze",
        "unsqueeze2",
        "cast",
        "flatten",
        "lod_reset",
        "slice",
        "transpose",
    }
)
KEEP_CLASSES = frozenset(
    {
        "softmax",
        "log_softmax",
        "dropout",
        "reshape",
        "reshape2",
        "squeeze",
        "squeeze2",
        "unsqueeze",
        "unsqueeze2",
        "flatten",
        "scale",
        "cast",
    }
)
SOURCE_ARGUMENTS = ("input", "x")  # the argument a KEEP_ layer takes its values from
