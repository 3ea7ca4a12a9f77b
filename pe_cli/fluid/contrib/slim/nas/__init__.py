"""``paddle.fluid.contrib.slim.nas``: slim's light architecture search: LightNASStrategy (a Compressor
strategy), SearchSpace (the interface of a user's space), ControllerServer and SearchAgent (the search's
controller served over a local socket to the Compressor's workers), ``lock`` (file locks)."""

from . import controller_server, light_nas_strategy, lock, search_agent, search_space  # noqa: F401
from .controller_server import ControllerServer  # noqa: F401
from .lock import lock  # noqa: F401,F811 -- the function, as Fluid's package holds it
from .light_nas_strategy import LightNASStrategy  # noqa: F401
from .search_agent import SearchAgent  # noqa: F401
from .search_space import SearchSpace  # noqa: F401

__all__ = ["LightNASStrategy", "ControllerServer", "SearchAgent", "SearchSpace"]
