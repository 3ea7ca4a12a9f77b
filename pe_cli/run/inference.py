"""The inference program of a run config: the forward ops from the input feeds to the model's
output, with a checkpoint's parameters loaded. ``pe predict`` runs it and ``pe export`` writes it.

Which layer is the output, and which feeds are inputs, is read from the model file: a feed given
to a layer's ``label`` argument is a label; the output is the last layer that needs no label
(``logits`` in models/lenet.yaml), unless ``--output LAYER`` names one. An integer label makes the
model a classifier (class ids and probabilities), a float label a regression (values).
"""

from dataclasses import dataclass

import numpy as np

from ..base.errors import PeError
from ..data.unscaling import unscaling
from ..executor import Executor, Scope, scope_guard
from ..framework import OpRole
from ..ops.registry import with_trait
from ..io import load_persistables
from .build import build_programs, layer_refs, split_feeds
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

    def run(self, feed):
        with scope_guard(self.scope):
            return np.asarray(self.exe.run(self.program, feed=feed, fetch_list=[self.target.name])[0])

    def value(self, name):
        """A parameter's value (numpy) in this inference's scope."""
        return np.asarray(self.scope.get_array(name))


def task_kind(spec):
    """ "classification" when the (first) label feed holds integers, else "regression"."""
    _, labels = split_feeds(spec)
    label_dtype = str(spec.feeds[labels[0]].dtype) if labels else "float32"
    return "classification" if "int" in label_dtype else "regression"


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
    spec = cfg.model
    _, labels = split_feeds(spec)
    if not labels or task_kind(spec) != "regression":
        return None
    try:
        if layer != output_layer(spec):
            return None
    except PeError:
        return None
    state = preprocessing.feeds.get(labels[0]) if preprocessing is not None else None
    return unscaling(state, cfg.data["data"]["transforms"].get(labels[0]) or [])


def writes_probabilities(program, name):
    """Whether the variable ``name`` is written by an op of the registry's trait "probabilities" (a
    softmax): pe predict and the ONNX export take a classifier's rows as they are; any other
    classifier output gets a softmax."""
    ops = with_trait("probabilities")
    return any(op.type in ops and name in op.output_arg_names for op in program.global_block().ops)


def _prune(program, target):
    """Keeps the forward ops ``target`` depends on (the loss and metric ops need labels)."""
    block = program.global_block()
    needed, keep = {target}, []
    for op in reversed(block.ops):
        if (op.role & ~OpRole.Loss) == OpRole.Forward and needed.intersection(op.output_arg_names):
            keep.append(op)
            needed.update(op.input_arg_names)
    block.ops = list(reversed(keep))
    return needed


def load_inference(cfg, checkpoint, output=None, command="predict"):
    """Builds the test program of ``cfg``, prunes it to the output and loads ``checkpoint`` (``best``
    where its run kept one; a CONFIG that disagrees with the run is refused: run/run_record.py)."""
    ckpt, run_dir = run_checkpoint(cfg, checkpoint, command)
    spec = cfg.model
    name = output_layer(spec, output)
    inputs, labels = split_feeds(spec)
    preprocessing = saved_preprocessing(cfg, run_dir)
    fill_data_sizes(cfg, preprocessing)
    programs = build_programs(spec, cfg, with_optimizer=False)
    target = programs.model.var(name)
    if isinstance(target, (tuple, list)):
        target = target[0]
    exe, scope = Executor(make_place(cfg)), Scope()
    with scope_guard(scope):
        exe.run(programs.startup)
        load_persistables(exe, ckpt, programs.test)
    program = programs.test.clone(for_test=True)
    needed = _prune(program, target.name)
    missing = [f for f in labels if f in needed]
    if missing:
        raise spec.doc.error(
            ("layers",),
            f"the output '{name}' needs the label feed '{missing[0]}'",
            "name an output layer that needs no label with --output LAYER",
        )
    return Inference(
        program,
        inputs,
        labels,
        name,
        target,
        task_kind(spec),
        exe,
        scope,
        ckpt,
        read_state(ckpt).get("step"),
        preprocessing,
        cfg.data["data"]["transforms"],
        target_unscaling(cfg, preprocessing, name),
        writes_probabilities(program, target.name),
    )
