"""``paddle.distributed`` of Paddle 1.8: ``python -m paddle.distributed.launch`` (collective trainers,
launch.py) and ``launch_ps`` (parameter servers and trainers), over pe's launcher (pe_cli/run/
launch_cluster.py, ``pe launch``); the cluster description they share (utils.py, cloud_utils.py)
and the file-system wrappers (fs_wrapper.py)."""

from ...base.errors import refuse

# Paddle 2.6's semi-automatic parallelism (placements of a tensor over a process mesh), which its op
# tests name in annotations: pe has none, so each name refuses in one line when used.
AUTO_PARALLEL = ("Placement", "Shard", "Replicate", "Partial", "ProcessMesh", "shard_tensor", "reshard")
refuse(
    globals(),
    "paddle.distributed",
    AUTO_PARALLEL,
    "Paddle 2.6's semi-automatic parallelism (tensors placed over a ProcessMesh); pe's distributed "
    "training is fleet's and the transpilers' (pe launch)",
)
