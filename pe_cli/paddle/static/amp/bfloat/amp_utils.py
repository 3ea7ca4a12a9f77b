"""``paddle.static.amp.bf16.amp_utils``: refused (pe has no bfloat16 dtype)."""

from .....base.errors import unsupported

_WHY = "pe has no bfloat16 dtype"
bf16_guard = unsupported("paddle.static.amp.bf16.bf16_guard", _WHY)
cast_model_to_bf16 = unsupported("paddle.static.amp.bf16.cast_model_to_bf16", _WHY)
cast_parameters_to_bf16 = unsupported("paddle.static.amp.bf16.cast_parameters_to_bf16", _WHY)
convert_float_to_uint16 = unsupported("paddle.static.amp.bf16.convert_float_to_uint16", _WHY)
rewrite_program_bf16 = unsupported("paddle.static.amp.bf16.rewrite_program_bf16", _WHY)
