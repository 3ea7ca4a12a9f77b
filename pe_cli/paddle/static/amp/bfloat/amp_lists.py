"""``paddle.static.amp.bf16.amp_lists``: refused (pe has no bfloat16 dtype)."""

from .....base.errors import unsupported

AutoMixedPrecisionListsBF16 = unsupported(
    "paddle.static.amp.bf16.AutoMixedPrecisionListsBF16", "pe has no bfloat16 dtype"
)
