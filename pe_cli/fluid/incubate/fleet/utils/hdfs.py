"""``paddle.fluid.incubate.fleet.utils.hdfs``: this module's HDFSClient (``is_file``, ``cat``,
``upload_dir``, multi-process transfers) drives a Hadoop cluster, which pe does not; making one says
so in one line. (fluid.contrib.utils.HDFSClient, the other client of Fluid 1.8, is pe's over the
``hadoop`` command.)"""

from ....unsupported import HDFS, unsupported

__all__ = ["HDFSClient"]
HDFSClient = unsupported("paddle.fluid.incubate.fleet.utils.hdfs.HDFSClient", HDFS)
