"""``paddle.sysconfig``: where PaddlePaddle's C++ headers (``get_include``) and libpaddle_framework
(``get_lib``) are, for building custom C++ ops. pe has neither (its ops are Python, registered in
pe_cli/ops), so each says so in one line."""

from ..fluid.unsupported import unsupported

__all__ = ["get_include", "get_lib"]
_NO_CPP = (
    "pe has no C++ headers or library: custom C++ ops are not part of pe (its ops are Python, registered in pe_cli/ops)"
)
get_include = unsupported("paddle.sysconfig.get_include", _NO_CPP)
get_lib = unsupported("paddle.sysconfig.get_lib", _NO_CPP)
