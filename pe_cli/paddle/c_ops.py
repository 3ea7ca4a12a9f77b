"""``paddle._C_ops``: Paddle 2.x's eager (dygraph) functions of its ops, one per op, which its tests
call inside dygraph code. pe runs static graphs only: every name refuses in one line when called
(a static program builds the op through its Python API or ``block.append_op``)."""

from ..fluid.unsupported import unsupported_module

__getattr__ = unsupported_module(
    "paddle._C_ops", "Paddle's eager op functions run in dygraph mode; pe runs static graphs only"
)
