"""``pe export --inference-dir DIR``: Fluid's save_inference_model layout (``__model__`` and one
file per parameter), loadable with load_inference_model."""
from ..executor import scope_guard
from ..io import save_inference_model


def export_inference_dir(inference, dirname):
    with scope_guard(inference.scope):
        return save_inference_model(dirname, inference.inputs, [inference.target], inference.exe,
                                    main_program=inference.program)
