"""``pe export --inference-dir DIR``: save_inference_model's directory (``__model__`` and one file per
parameter, laid out as Fluid's but in pe's formats: a JSON program, ``.npy`` files), loadable with
load_inference_model (pe's; Paddle reads only its own protobuf programs)."""
from ..executor import scope_guard
from ..io import save_inference_model


def export_inference_dir(inference, dirname):
    with scope_guard(inference.scope):
        return save_inference_model(dirname, inference.inputs, [inference.target], inference.exe,
                                    main_program=inference.program)
