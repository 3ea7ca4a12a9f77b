"""``paddle.distributed.cloud_utils``: the cluster of a PaddleCloud job, read from its environment
(PADDLE_TRAINERS, POD_IP, PADDLE_TRAINER_ID, TRAINER_PORTS_NUM, DISTRIBUTED_TRAINER_ENDPOINTS or
PADDLE_PORT)."""

import os

from ... import paddle  # noqa: F401 -- Fluid's module has it
from .utils import get_cluster, logger


def _required(name):
    value = os.getenv(name)
    assert value is not None, f"{name} should not be None"
    return value


def _endpoints(node_ips, args_port, selected_gpus, ports_num):
    """Each node's trainer endpoints: DISTRIBUTED_TRAINER_ENDPOINTS cut per node, else consecutive
    ports from the cloud's PADDLE_PORT (several nodes) or ``args_port`` (default 6170)."""
    given = os.getenv("DISTRIBUTED_TRAINER_ENDPOINTS")
    if given is not None:
        flat = given.split(",")
        assert len(node_ips) * ports_num == len(flat)
        return [flat[i * ports_num : (i + 1) * ports_num] for i in range(len(node_ips))]
    port = args_port
    if len(node_ips) > 1:
        try:
            cloud_port = int(os.getenv("PADDLE_PORT", ""))
            if ports_num >= len(selected_gpus) and cloud_port != args_port:
                logger.warning(f"Use Cloud specified port:{cloud_port}.")
                port = cloud_port
        except ValueError as e:
            print(e)
    port = 6170 if port is None else port
    return [[f"{ip}:{p}" for p in range(port, port + len(selected_gpus))] for ip in node_ips]


def get_cloud_cluster(args_node_ips, args_node_ip, args_port, selected_gpus):
    """(Cluster, this node's Pod) of the cloud job; the arguments' addresses are warned about when
    the cloud's differ."""
    node_ips, node_ip = _required("PADDLE_TRAINERS").split(","), _required("POD_IP")
    node_rank, ports_num = int(_required("PADDLE_TRAINER_ID")), int(_required("TRAINER_PORTS_NUM"))
    if node_ip not in ("127.0.0.1", args_node_ip):
        logger.warning(
            f"Please NOTE: When using paddlecloud, node_ip is automatically got from POD_IP. Your input "
            f"node_ip: {args_node_ip} doesn't equals to node_ip: {node_ip} from paddlecloud environment."
        )
    if args_node_ips not in ("127.0.0.1", ",".join(node_ips)):
        logger.warning(
            f"Please NOTE: When using paddlecloud, cluster_node_ips is automatically got from "
            f"PADDLE_TRAINERS(multi nodes) or POD_IP(single node).Your input cluster_node_ips: "
            f"{args_node_ips} doesn't equals to IPs: {node_ips} from paddlecloud environment."
        )
    cluster, _ = get_cluster(
        node_ips, node_ip, _endpoints(node_ips, args_port, selected_gpus, ports_num), selected_gpus
    )
    return cluster, cluster.pods[node_rank]


def get_trainers_num():
    return int(os.getenv("PADDLE_TRAINERS_NUM", "1"))
