"""``paddle.static.amp.bf16.decorator``: refused (pe has no bfloat16 dtype)."""

from .....base.errors import unsupported

decorate_bf16 = unsupported("paddle.static.amp.bf16.decorate_bf16", "pe has no bfloat16 dtype")
