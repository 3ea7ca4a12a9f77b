"""``pe export --inference-dir DIR``: save_inference_model's directory (``__model__`` and one file per
parameter, in Fluid's formats), which pe's and PaddlePaddle's load_inference_model load."""
from ..executor import scope_guard
from ..io import save_inference_model


def export_inference_dir(inference, dirname):
    with scope_guard(inference.scope):
        return save_inference_model(dirname, inference.inputs, [inference.target], inference.exe,
                                    main_program=inference.program)
