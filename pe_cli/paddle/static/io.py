"""``paddle.static.io`` (Paddle 2.6's module behind ``paddle.static``'s saving and loading): the same
objects as ``paddle.static.save_inference_model``, ``load_inference_model``, ``save``, ``load``, the
(de)serializers, ``load_program_state``/``set_program_state`` and ``save_vars``/``load_vars`` (pe_cli/io)."""

from ...io import load, load_program_state, load_vars, save, save_vars, set_program_state  # noqa: F401
from ...io.static_io import (
    deserialize_persistables,
    deserialize_program,
    load_from_file,  # noqa: F401
    load_inference_model,
    normalize_program,
    save_inference_model,
    save_to_file,
    serialize_persistables,
    serialize_program,
)
