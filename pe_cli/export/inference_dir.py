"""``pe export --inference-dir DIR``: save_inference_model's directory (``__model__`` and one file per
parameter, in Fluid's formats), which pe's and PaddlePaddle's load_inference_model load, and
``manifest.json`` (each file's size and sha256: pe infer checks them; pe_cli/io/manifest.py)."""
from ..executor import scope_guard
from ..io import save_inference_model
from ..io.manifest import write_manifest


def export_inference_dir(inference, dirname):
    with scope_guard(inference.scope):
        saved = save_inference_model(dirname, inference.inputs, [inference.target], inference.exe,
                                     main_program=inference.program)
    write_manifest(dirname)
    return saved
