"""``paddle.distributed`` of Paddle 1.8: ``python -m paddle.distributed.launch`` (collective trainers,
launch.py) and ``launch_ps`` (parameter servers and trainers), over pe's launcher (pe_cli/run/
launch_cluster.py, ``pe launch``); the cluster description they share (utils.py, cloud_utils.py)
and the file-system wrappers (fs_wrapper.py)."""
