"""Fluid 1.8's ``contrib.utils``: lookup-table loading and the HDFS client."""

from . import hdfs_utils, lookup_table_utils  # noqa: F401
from .hdfs_utils import *  # noqa: F401,F403
from .lookup_table_utils import *  # noqa: F401,F403

__all__ = hdfs_utils.__all__ + lookup_table_utils.__all__
