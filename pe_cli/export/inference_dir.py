"""``pe export --inference-dir DIR``: save_inference_model's directory (``__model__`` and one file per
parameter, in Fluid's formats), which pe's and PaddlePaddle's load_inference_model load; with the
run's preprocessing.json beside them, which ``pe infer`` applies to raw files (naming, for a
regression whose target has a numeric preprocessing and no data.transforms, the output that pe infer
un-scales to the target's units; of a model with several outputs, each regression's), and ``manifest.json``
(each file's size and sha256: pe infer checks them; pe_cli/io/manifest.py)."""

import os

from ..base.errors import PeError
from ..data.preprocessing import FILE_NAME
from ..data.unscaling import unscaling
from ..executor import scope_guard
from ..io import save_inference_model
from ..io.manifest import write_manifest
from ..run.rundir import atomic_write


def export_inference_dir(inference, dirname):
    """Writes the directory; a model with several outputs (Inference.heads) has a fetch target per
    output, each regression's named in preprocessing.json's ``target`` (a list)."""
    heads = inference.heads or [inference]
    targets = list({h.target.name: h.target for h in heads}.values())  # a layer two heads share: once
    pairs = unscaled_targets(inference, heads)
    with scope_guard(inference.scope):
        saved = save_inference_model(dirname, inference.inputs, targets, inference.exe, main_program=inference.program)
    if inference.preprocessing is not None:
        atomic_write(os.path.join(dirname, FILE_NAME), inference.preprocessing.with_targets(pairs).to_text())
    write_manifest(dirname)
    return saved


def unscaled_targets(inference, heads):
    """[(numeric target feed, output variable)] that pe infer un-scales: each regression whose target
    has a numeric preprocessing and no data.transforms. One layer predicting two such targets is one
    line: a fetch target has one set of units."""
    prep, transforms = inference.preprocessing, inference.transforms or {}
    if prep is None:
        return []
    pairs = [
        (h.labels[0], h.target.name)
        for h in heads
        if h.units and h.labels and h.labels[0] in prep.feeds and not unscaling(None, transforms.get(h.labels[0]))
    ]
    outputs = [output for _, output in pairs]
    shared = [feed for feed, output in pairs if outputs.count(output) > 1]
    if shared:
        raise PeError(
            f"pe export --inference-dir: one layer predicts {' and '.join(shared)}, each in its own units, and "
            f"its fetch target can be un-scaled to one; export one at a time with --output LAYER, or use --onnx"
        )
    return pairs
