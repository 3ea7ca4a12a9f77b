"""``paddle.fluid.contrib.slim.nas``: slim's light architecture search (LightNASStrategy, SearchSpace,
SearchAgent, ControllerServer: a search served over sockets between the Compressor's workers), which
pe does not have; ``lock`` (file locks) works."""
from . import controller_server, light_nas_strategy, lock, search_agent, search_space  # noqa: F401
from .controller_server import ControllerServer  # noqa: F401
from .lock import lock  # noqa: F401,F811 -- the function, as Fluid's package holds it
from .light_nas_strategy import LightNASStrategy  # noqa: F401
from .search_agent import SearchAgent  # noqa: F401
from .search_space import SearchSpace  # noqa: F401
