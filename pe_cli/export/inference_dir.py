"""``pe export --inference-dir DIR``: save_inference_model's directory (``__model__`` and one file per
parameter, in Fluid's formats), which pe's and PaddlePaddle's load_inference_model load; with the
run's preprocessing.json beside them, which ``pe infer`` applies to raw files (naming, for a
regression whose target has a numeric preprocessing and no data.transforms, the output that pe infer
un-scales to the target's units), and ``manifest.json``
(each file's size and sha256: pe infer checks them; pe_cli/io/manifest.py)."""

import os

from ..data.preprocessing import FILE_NAME
from ..data.unscaling import unscaling
from ..executor import scope_guard
from ..io import save_inference_model
from ..io.manifest import write_manifest
from ..run.rundir import atomic_write


def export_inference_dir(inference, dirname):
    with scope_guard(inference.scope):
        saved = save_inference_model(
            dirname, inference.inputs, [inference.target], inference.exe, main_program=inference.program
        )
    prep = inference.preprocessing
    if prep is not None:
        label = inference.labels[0] if inference.units and inference.labels else None
        if label in prep.feeds and not unscaling(None, (inference.transforms or {}).get(label)):
            prep = prep.with_target(label, inference.target.name)  # pe infer un-scales the prediction
        atomic_write(os.path.join(dirname, FILE_NAME), prep.to_text())
    write_manifest(dirname)
    return saved
