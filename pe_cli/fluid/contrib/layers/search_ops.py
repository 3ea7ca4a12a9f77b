"""Fluid 1.8's contrib layers whose ops pe does not have yet (pyramid hashing): each name resolves and raises FluidUnsupported."""
from ....base.errors import unsupported

__all__ = ["search_pyramid_hash"]

_WHY = "its op is not in pe yet"
search_pyramid_hash = unsupported("fluid.contrib.search_pyramid_hash", _WHY)
