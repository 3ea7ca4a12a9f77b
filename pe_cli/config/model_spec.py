"""What a checked model file becomes, as plain data (model.py loads and checks it into these): ModelSpec, its
FeedSpecs and LayerSpecs, each knowing its place in the file; and which builder arguments name feeds or
earlier layers (TENSOR_ARGS, variable_arguments) or parameter attributes (PARAM_ATTR_ARGS)."""

import os
import re
from dataclasses import dataclass, field


# Builder arguments that take variables: their YAML values are names of feeds or earlier layers.
TENSOR_ARGS = frozenset(
    {
        "input",
        "inputs",
        "x",
        "y",
        "label",
        "logits",
        "weight",
        "index",
        "indices",
        "updates",
        "condition",
        "mask",
        "length",
        "target",
        "ids",
        "actual_shape",
        "rois",
        "rois_num",
        "batch_roi_nums",
        "gt_box",
        "gt_label",
        "gt_score",
        "queries",
        "keys",
        "values",
        "attn_mask",
        "src_mask",
    }
)


PARAM_ATTR_ARGS = frozenset({"param_attr", "bias_attr", "weight_attr", "moving_mean_attr", "moving_variance_attr"})


def variable_arguments(fn):
    """The arguments of layer function ``fn`` that name feeds or earlier layers: TENSOR_ARGS, and those
    ``fn`` marks (paddle.nn's names, pe_cli/layers/paddle_nn.py: MultiHeadAttention's query, key, value)."""
    return TENSOR_ARGS | getattr(fn, "variable_arguments", frozenset())


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


@dataclass
class FeedSpec:
    name: str
    shape: list
    dtype: str
    lod_level: int
    append_batch_size: bool
    doc: object
    path: tuple
    location: str = field(init=False)  # 'lenet.yaml:3 feeds.image', what its ops remember
    full_shape: list = field(init=False)  # the variable's shape as fluid.layers.data makes it (batch -1 first)

    def __post_init__(self):
        mark = self.doc.mark(self.path, key=True)
        where = f"feeds.{self.name}" if self.path[0] == "feeds" else ".".join(self.path)  # or data.preprocessing's
        self.location = f"{_place(mark)} {where}"
        shape = list(self.shape)
        self.full_shape = [-1] + shape if self.append_batch_size and -1 not in shape else shape


@dataclass
class LayerSpec:
    name: str
    type: str
    args: dict
    index: int  # position in its own file's layers list
    doc: object
    path: tuple  # ("layers", index, name)
    label: str = None  # where it is listed, when not layers[index] (a block's step: "rnn.step[0]")
    block: list = None  # a recurrent block's step layers (LayerSpecs), set when checked
    batch_mean: bool = False  # the loss written in place (loss: {type: ...}): built as its mean over the batch
    location: str = field(init=False)  # 'lenet.yaml:6 layers[0] conv1', what its ops remember
    # set when checked (check_model), all the build reads:
    fn: object = None  # the layer function
    kwargs: dict = None  # its arguments: Ref (or a list of them), Typed param attributes, YAML values
    takes_name: bool = False  # the function takes name= (the layer's name)
    suspect: tuple = None  # (key, value): a required argument given as a string, named if it fails

    def __post_init__(self):
        mark = self.doc.mark(self.path, key=True)
        where = "loss" if self.batch_mean else f"{self.label or f'layers[{self.index}]'} {self.name}"
        self.location = f"{_place(mark)} {where}"


def _place(mark):
    """'lenet.yaml:3' for a file's position; the argument (command line '...') for a value an
    override gave whole (data.preprocessing.city={kind: category} implies a feed there)."""
    return f"{os.path.basename(mark.file)}:{mark.line}" if hasattr(mark, "file") else str(mark)


@dataclass
class ModelSpec:
    name: str
    file: str
    doc: object
    feeds: dict = field(default_factory=dict)  # name -> FeedSpec
    layers: list = field(default_factory=list)  # [LayerSpec]
    loss: str = None
    fetches: list = None
    loss_doc: object = None
    fetches_doc: object = None
    refs: dict = field(default_factory=dict)  # the loss and fetches as written -> Ref, set when checked
    resolved: bool = False  # check_model passed: the build may read it

    def names(self):
        return list(self.feeds) + [l.name for l in self.layers]

    def layer(self, name):
        return next((l for l in self.layers if l.name == name), None)

    def to_data(self):
        """The resolved model (includes expanded) as plain data, for the run directory."""
        return {
            "name": self.name,
            "feeds": {
                f.name: {
                    "shape": list(f.shape),
                    "dtype": f.dtype,
                    "lod_level": f.lod_level,
                    "append_batch_size": f.append_batch_size,
                }
                for f in self.feeds.values()
            },
            "layers": [{l.name: dict({"type": l.type}, **l.args)} for l in self.layers if not l.batch_mean],
            "loss": next(({"type": l.type, **l.args} for l in self.layers if l.batch_mean), self.loss),
            "fetches": list(self.fetches or []),
        }
