"""``paddle.fluid.incubate.fleet.utils``: FleetUtil (fleet_util.py: logs of worker 0, global AUC and
CTR metrics over the workers, program checks and drawings), the program helpers (utils.py), and the
HDFS client (hdfs.py) and barrier (fleet_barrier_util.py), which need a Hadoop cluster."""
