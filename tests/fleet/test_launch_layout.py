"""`pe launch` with paddle.distributed.launch's flags (issue 58, item 2): which trainers a node
starts, their endpoints and environment, and the one-line errors for flags that cannot work."""

import os

import pytest

from pe_cli.base.errors import PeError
from pe_cli.run.launch_cluster import FIRST_TRAINER_ENV, LOG_DIR_ENV, layout
from tests.cli.test_helpers import pe


def test_one_node_servers_first_then_a_trainer_per_selected_device():
    lay = layout(None, 1, "127.0.0.1", "127.0.0.1", 7000, selected_gpus="0,1")
    assert (lay.trainers, lay.servers, lay.nodes, lay.first_trainer) == (2, 1, 1, 0)
    assert lay.server_endpoints == ["127.0.0.1:7000"]
    assert lay.trainer_endpoints == ["127.0.0.1:7001", "127.0.0.1:7002"]
    env = lay.env({}, log_dir="logs", selected_gpus="0,1")
    assert env["PADDLE_TRAINERS_NUM"] == "2" and env["PADDLE_PSERVERS_IP_PORT_LIST"] == "127.0.0.1:7000"
    assert env["PADDLE_TRAINER_ENDPOINTS"] == "127.0.0.1:7001,127.0.0.1:7002"
    assert env[LOG_DIR_ENV] == os.path.abspath("logs") and env[FIRST_TRAINER_ENV] == "0"


def test_several_nodes_each_starts_its_share_and_paddlecloud_names_them():
    lay = layout(2, 0, "10.0.0.1,10.0.0.2", "10.0.0.2", 6170)
    assert lay.first_trainer == 2 and lay.nodes == 2
    assert lay.trainer_endpoints == ["10.0.0.1:6170", "10.0.0.1:6171", "10.0.0.2:6170", "10.0.0.2:6171"]
    cloud = layout(
        1,
        0,
        "127.0.0.1",
        "127.0.0.1",
        6170,
        use_paddlecloud=True,
        env={"PADDLE_TRAINERS": "10.0.0.1,10.0.0.2", "POD_IP": "10.0.0.1", "PADDLE_PORT": "9000"},
    )
    assert cloud.trainer_endpoints == ["10.0.0.1:9000", "10.0.0.2:9000"] and cloud.first_trainer == 0


@pytest.mark.parametrize(
    "args, said",
    [
        ((3, 0, "127.0.0.1", "127.0.0.1", 6170, "0,1"), "--selected_gpus names 2"),
        ((1, 0, "10.0.0.1,10.0.0.2", "10.0.0.3", 6170), "--node_ip 10.0.0.3 is not one of"),
        ((1, 1, "10.0.0.1,10.0.0.2", "10.0.0.1", 6170), "--pservers runs on one node"),
        ((1, 0, "", "127.0.0.1", 6170), "--cluster_node_ips is empty"),
        ((1, 0, "127.0.0.1", "127.0.0.1", 65535), "--started_port 65535"),
    ],
)
def test_flags_that_cannot_work_are_one_line_errors(args, said):
    with pytest.raises(PeError, match=said):
        layout(*args)


def test_the_cli_says_it_in_one_line_and_starts_nothing(tmp_path):
    script = tmp_path / "never.py"
    script.write_text("open('ran', 'w').close()\n")
    proc = pe("launch", "--node_ip", "10.9.9.9", "--log_dir", tmp_path / "logs", script, cwd=tmp_path)
    assert proc.returncode != 0 and "--node_ip 10.9.9.9 is not one of --cluster_node_ips 127.0.0.1" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["never.py"]
