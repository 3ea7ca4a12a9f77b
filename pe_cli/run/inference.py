"""The inference program of a run config: the forward ops from the input feeds to the model's
output, with a checkpoint's parameters loaded. ``pe predict`` runs it and ``pe export`` writes it.

Which layer is the output, and which feeds are inputs, is read from the model file: a feed given
to a layer's ``label`` argument is a label; the output is the last layer that needs no label
(``logits`` in models/lenet.yaml), unless ``--output LAYER`` names one. An integer label makes the
model a classifier (class ids and probabilities), a float label a regression (values).

A model with several label feeds (several output features) has one head per label (output_heads):
the one label-free layer a loss or metric compares with it (``<name>_pred``, ``<name>_logits``),
each a classifier or a regression by its own label, in its own units and classes.
"""

from dataclasses import dataclass

import numpy as np

from ..base.errors import PeError
from ..data.unscaling import unscaling
from ..executor import Executor, Scope, scope_guard
from ..framework import OpRole
from ..ops.registry import with_trait
from ..io import load_persistables
from .build import LABEL_ARGS, build_programs, layer_refs, split_feeds
from .placement import make_place
from .run_record import run_checkpoint
from .preprocessing import fill_data_sizes, saved_preprocessing
from .rundir import read_state


@dataclass
class Inference:
    program: object  # the pruned test program: input feeds -> output
    inputs: list  # input feed names, in declaration order
    labels: list  # label feed names
    output: str  # the output layer's name
    target: object  # its Variable
    kind: str  # "classification" or "regression"
    exe: object
    scope: object
    checkpoint: str
    step: int
    preprocessing: object = None  # the run's saved data.preprocessing (run/preprocessing.py), or None
    transforms: dict = None  # the config's data.transforms, feed -> list
    units: list = None  # a numeric target's unscaling steps (target_unscaling), or None
    rows_are_probabilities: bool = False  # the output is a softmax's: a classifier's probabilities as they are
    label: str = None  # the label feed the output predicts (names its columns), or None
    heads: list = None  # several outputs (HeadView each: pe predict/export/serve without --output), or None

    def run(self, feed):
        with scope_guard(self.scope):
            return np.asarray(self.exe.run(self.program, feed=feed, fetch_list=[self.target.name])[0])

    def run_heads(self, feed):
        """Every head's values of one batch, in the order of ``heads``."""
        with scope_guard(self.scope):
            values = self.exe.run(self.program, feed=feed, fetch_list=[h.target.name for h in self.heads])
        return [np.asarray(v) for v in values]

    def value(self, name):
        """A parameter's value (numpy) in this inference's scope."""
        return np.asarray(self.scope.get_array(name))


@dataclass(frozen=True)
class Head:
    output: str  # the layer whose values predict ``label``
    label: str  # the label feed
    kind: str  # "classification" (an integer label) or "regression"


@dataclass
class HeadView:
    """One head of an Inference with several: the fields pe predict's prediction_result reads."""

    output: str
    label: str
    kind: str
    target: object
    units: list
    rows_are_probabilities: bool
    preprocessing: object

    @property
    def labels(self):
        return [self.label]


def task_kind(spec):
    """ "classification" when the (first) label feed holds integers, else "regression"."""
    _, labels = split_feeds(spec)
    label_dtype = str(spec.feeds[labels[0]].dtype) if labels else "float32"
    return "classification" if "int" in label_dtype else "regression"


def _label_kind(spec, label):
    return "classification" if "int" in str(spec.feeds[label].dtype) else "regression"


def _tainted(spec, labels):
    """The layers that need a label feed (through their arguments, transitively)."""
    tainted = set(labels)
    for layer in spec.layers:
        if any(name in tainted for _, name in layer_refs(layer)):
            tainted.add(layer.name)
    return tainted


def output_heads(spec):
    """[Head] of a model with several label feeds, one per label: the one label-free layer that a
    loss or metric layer takes beside it (input, logits, x); a label with none, or with two, is one
    line. [] for a model with at most one label feed (output_layer decides its output)."""
    _, labels = split_feeds(spec)
    if len(labels) < 2:
        return []
    tainted = _tainted(spec, labels)
    found = {label: [] for label in labels}
    for layer in spec.layers:
        refs = list(layer_refs(layer))
        preds = [n for k, n in refs if k in ("input", "logits", "x") and n not in tainted and n not in spec.feeds]
        for label in [n for k, n in refs if k in LABEL_ARGS and n in found]:
            found[label] += [p for p in preds if p not in found[label]]
    for label, layers in found.items():
        if len(layers) != 1:
            why = "no loss or metric compares a layer with it" if not layers else f"{' and '.join(layers)} both do"
            raise spec.doc.error(
                ("layers",),
                f"{spec.name} has several label feeds ({', '.join(labels)}) and pe cannot tell which layer "
                f"predicts '{label}': {why}",
                "name the output with --output LAYER",
            )
    return [Head(found[label][0], label, _label_kind(spec, label)) for label in labels]


def head_of(spec, layer):
    """The Head whose output is ``layer`` (a single-label model: its default output), else None."""
    _, labels = split_feeds(spec)
    try:
        if len(labels) > 1:
            return next((h for h in output_heads(spec) if h.output == layer), None)
        if labels and layer == output_layer(spec):
            return Head(layer, labels[0], task_kind(spec))
    except PeError:
        pass
    return None


def output_layer(spec, wanted=None):
    """The layer whose values are the predictions (see the module docstring)."""
    names = [layer.name for layer in spec.layers]
    if wanted is not None:
        if wanted not in names:
            from_names = ", ".join(names)
            raise spec.doc.error(
                ("layers",), f"--output '{wanted}' is not a layer of {spec.name}", f"the layers are {from_names}"
            )
        return wanted
    _, labels = split_feeds(spec)
    tainted = set(labels)
    output = None
    for layer in spec.layers:
        if any(name in tainted for _, name in layer_refs(layer)):
            tainted.add(layer.name)
        else:
            output = layer.name
    if output is None:
        raise spec.doc.error(
            ("layers",),
            f"every layer of {spec.name} needs a label feed; nothing to predict",
            "name the output layer with --output LAYER",
        )
    return output


def target_unscaling(cfg, preprocessing, layer):
    """The steps (data/preprocessing.py's ``unscaling``) that take a regression's prediction, the
    values of ``layer`` when it is the default output, back to its numeric target's units (the
    inverse of the target's preprocessing and transforms); None for a classifier, another layer,
    or a target the data leaves as it is."""
    head = head_of(cfg.model, layer)
    return head_unscaling(cfg, preprocessing, head) if head is not None else None


def head_unscaling(cfg, preprocessing, head):
    """target_unscaling of a Head: its own label's steps (two heads of one layer each their own)."""
    if head.kind != "regression":
        return None
    state = preprocessing.feeds.get(head.label) if preprocessing is not None else None
    return unscaling(state, cfg.data["data"]["transforms"].get(head.label) or [])


def writes_probabilities(program, name):
    """Whether the variable ``name`` is written by an op of the registry's trait "probabilities" (a
    softmax): pe predict and the ONNX export take a classifier's rows as they are; any other
    classifier output gets a softmax."""
    ops = with_trait("probabilities")
    return any(op.type in ops and name in op.output_arg_names for op in program.global_block().ops)


def _prune(program, targets):
    """Keeps the forward ops the ``targets`` depend on (the loss and metric ops need labels)."""
    block = program.global_block()
    needed, keep = set(targets), []
    for op in reversed(block.ops):
        if (op.role & ~OpRole.Loss) == OpRole.Forward and needed.intersection(op.output_arg_names):
            keep.append(op)
            needed.update(op.input_arg_names)
    block.ops = list(reversed(keep))
    return needed


def _chosen(spec, output):
    """(the output layer, its Head or None, every Head of a model with several outputs without
    ``output``: pe predict, export and serve take them all)."""
    _, labels = split_feeds(spec)
    if output is None and len(labels) > 1:
        heads = output_heads(spec)
        return heads[0].output, heads[0], heads
    name = output_layer(spec, output)
    return name, head_of(spec, name), None


def _variable(programs, name):
    var = programs.model.var(name)
    return var[0] if isinstance(var, (tuple, list)) else var


def load_inference(cfg, checkpoint, output=None, command="predict"):
    """Builds the test program of ``cfg``, prunes it to the output (of a model with several outputs
    without ``output``: to all of them, ``heads``) and loads ``checkpoint`` (``best`` where its run kept one; a
    CONFIG that disagrees with the run is refused: run/run_record.py)."""
    ckpt, run_dir = run_checkpoint(cfg, checkpoint, command)
    spec = cfg.model
    name, head, heads = _chosen(spec, output)
    inputs, labels = split_feeds(spec)
    label = head.label if head else (labels[0] if len(labels) == 1 else None)
    if head is not None:  # labels[0]: the one the output predicts (its classes, its units)
        labels = [head.label] + [f for f in labels if f != head.label]
    preprocessing = saved_preprocessing(cfg, run_dir)
    fill_data_sizes(cfg, preprocessing)
    programs = build_programs(spec, cfg, with_optimizer=False)
    targets = [_variable(programs, h.output) for h in heads or [Head(name, label, None)]]
    exe, scope = Executor(make_place(cfg)), Scope()
    with scope_guard(scope):
        exe.run(programs.startup)
        load_persistables(exe, ckpt, programs.test)
    program = programs.test.clone(for_test=True)
    needed = _prune(program, [t.name for t in targets])
    missing = [f for f in labels if f in needed]
    if missing:
        raise spec.doc.error(
            ("layers",),
            f"the output '{name}' needs the label feed '{missing[0]}'",
            "name an output layer that needs no label with --output LAYER",
        )
    kind = head.kind if head else (task_kind(spec) if len(labels) <= 1 else "values")
    inference = Inference(
        program,
        inputs,
        labels,
        name,
        targets[0],
        kind,
        exe,
        scope,
        ckpt,
        read_state(ckpt).get("step"),
        preprocessing,
        cfg.data["data"]["transforms"],
        target_unscaling(cfg, preprocessing, name),
        writes_probabilities(program, targets[0].name),
        label,
    )
    if heads:
        inference.heads = [
            HeadView(
                h.output,
                h.label,
                h.kind,
                t,
                head_unscaling(cfg, preprocessing, h),
                writes_probabilities(program, t.name),
                preprocessing,
            )
            for h, t in zip(heads, targets)
        ]
    return inference
