"""Where Fluid's environment puts a role started on its own (pe_cli/distributed/rendezvous.py): its rank
among every process (servers first, in the order of their endpoints; trainer i after them; in
collective mode trainer i is rank i), the root's endpoint, and one-line errors for an environment
that cannot work, refused before any wait (ports, duplicated endpoints, counts, hosts that do not
resolve: issue 78). The rendezvous itself runs in tests/cli/test_rendezvous.py."""

import re
import pytest

from pe_cli.base.errors import PeError
from pe_cli.distributed.cluster_env import check_hosts, single_process_note
from pe_cli.distributed.rendezvous import cluster_from_env, connect_from_env, rank_env, transport_env

SERVERS = "10.0.0.1:6174,10.0.0.2:6174"


def test_pserver_mode_ranks_the_servers_first_then_the_trainers():
    server = cluster_from_env(
        {
            "PADDLE_TRAINING_ROLE": "PSERVER",
            "PADDLE_PSERVER_ENDPOINTS": SERVERS,
            "PADDLE_CURRENT_ENDPOINT": "10.0.0.2:6174",
            "PADDLE_TRAINERS_NUM": "2",
        }
    )
    assert (server.rank, server.size, server.endpoints[0]) == (1, 4, "10.0.0.1:6174")
    assert server.names == ("pserver 0", "pserver 1", "trainer 0", "trainer 1")
    trainer = cluster_from_env(
        {
            "TRAINING_ROLE": "TRAINER",
            "PADDLE_PSERVERS_IP_PORT_LIST": SERVERS,
            "PADDLE_TRAINER_ID": "1",
            "PADDLE_TRAINERS_NUM": "2",
            "PADDLE_CURRENT_ENDPOINT": "10.0.0.4:6174",
        }
    )
    assert (trainer.rank, trainer.who(3)) == (3, "trainer 1 at 10.0.0.4:6174")
    assert rank_env(trainer) == {
        "PE_RENDEZVOUS_RANK": "3",
        "PE_RENDEZVOUS_SIZE": "4",
        "PE_RENDEZVOUS_ROLE": "trainer 1 at 10.0.0.4:6174",
    }


def test_the_transpiler_examples_spelling_with_pod_ip_and_paddle_port():
    env = {
        "PADDLE_TRAINING_ROLE": "PSERVER",
        "PADDLE_PSERVERS": "10.0.0.1,10.0.0.2",
        "PADDLE_PORT": "6174",
        "POD_IP": "10.0.0.2",
        "PADDLE_TRAINERS": "3",
    }
    cluster = cluster_from_env(env)
    assert (cluster.rank, cluster.size, cluster.endpoints[:2]) == (1, 5, ("10.0.0.1:6174", "10.0.0.2:6174"))


def test_collective_mode_ranks_trainers_by_id():
    eps = "10.0.0.1:6170,10.0.0.2:6170,10.0.0.3:6170"
    cluster = cluster_from_env(
        {
            "PADDLE_TRAINER_ID": "2",
            "PADDLE_TRAINERS_NUM": "3",
            "PADDLE_TRAINER_ENDPOINTS": eps,
            "PADDLE_CURRENT_ENDPOINT": "10.0.0.3:6170",
        }
    )
    assert (cluster.rank, cluster.size, cluster.endpoints[0]) == (2, 3, "10.0.0.1:6170")


def test_a_cluster_outside_mpiexec_is_refused_in_one_line(monkeypatch):
    for name in ("PMI_RANK", "OMPI_COMM_WORLD_RANK"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(PeError, match="must run under an mpiexec of its own .*start it with pe fluid"):
        connect_from_env({"PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ENDPOINTS": "a:1,b:1"})


def test_one_process_is_no_cluster():
    assert cluster_from_env({}) is None
    assert cluster_from_env({"PADDLE_TRAINING_ROLE": "TRAINER", "PADDLE_TRAINERS_NUM": "1"}) is None
    assert connect_from_env({}) is None


@pytest.mark.parametrize(
    "env, says",
    [
        (
            {"PADDLE_TRAINING_ROLE": "PSERVER", "PADDLE_PSERVER_ENDPOINTS": SERVERS, "PADDLE_CURRENT_ENDPOINT": "x:1"},
            "PADDLE_CURRENT_ENDPOINT='x:1' is not one of PADDLE_PSERVER_ENDPOINTS",
        ),
        ({"PADDLE_TRAINING_ROLE": "PSERVER"}, "PADDLE_PSERVER_ENDPOINTS is not set"),
        ({"PADDLE_TRAINING_ROLE": "WORKER"}, "it must be PSERVER or TRAINER"),
        ({"PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ENDPOINTS": "a:1"}, "lists 1 endpoint(s)"),
        (
            {
                "PADDLE_TRAINERS_NUM": "2",
                "PADDLE_TRAINER_ID": "2",
                "PADDLE_TRAINER_ENDPOINTS": "a:1,b:1",
                "PADDLE_CURRENT_ENDPOINT": "a:1",
            },
            "PADDLE_TRAINER_ID=2 is not below PADDLE_TRAINERS_NUM=2",
        ),
        (
            {
                "PADDLE_TRAINERS_NUM": "2",
                "PADDLE_TRAINER_ID": "1",
                "PADDLE_TRAINER_ENDPOINTS": "a:1,b:1",
                "PADDLE_CURRENT_ENDPOINT": "a:1",
            },
            "names b:1 as trainer 1",
        ),
        (
            {"PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ENDPOINTS": "a:99999,b:1"},
            "PADDLE_TRAINER_ENDPOINTS endpoint a:99999: port 99999 is not a TCP port (1 to 65535)",
        ),
        (
            {"PADDLE_TRAINING_ROLE": "PSERVER", "PADDLE_PSERVER_ENDPOINTS": "a:0", "PADDLE_CURRENT_ENDPOINT": "a:0"},
            "port 0 is not a TCP port",
        ),
        (
            {"PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ENDPOINTS": "a:1,a:1"},
            "PADDLE_TRAINER_ENDPOINTS lists a:1 twice: every role needs an endpoint of its own",
        ),
        (
            {"PADDLE_TRAINING_ROLE": "TRAINER", "PADDLE_PSERVER_ENDPOINTS": "a:1", "PADDLE_TRAINER_ENDPOINTS": "a:1"},
            "a:1 is both a parameter server's endpoint (PADDLE_PSERVER_ENDPOINTS) and a trainer's",
        ),
        (
            {
                "PADDLE_TRAINING_ROLE": "PSERVER",
                "PADDLE_PSERVER_ENDPOINTS": "a:1",
                "PADDLE_CURRENT_ENDPOINT": "a:1",
                "PADDLE_TRAINERS_NUM": "0",
            },
            "PADDLE_TRAINERS_NUM='0': give the number of trainers, a whole number of 1 or more",
        ),
        ({"PADDLE_TRAINERS_NUM": "two"}, "PADDLE_TRAINERS_NUM='two': give the number of trainers"),
        ({"PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ID": "-1"}, "PADDLE_TRAINER_ID='-1': give this trainer's index"),
    ],
)
def test_an_environment_that_cannot_work_is_one_line(env, says):
    with pytest.raises(PeError, match=re.escape(says)) as e:
        cluster_from_env(env)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_the_transport_is_ofi_tcp_unless_the_environment_chooses():
    assert transport_env({}) == {"MPIR_CVAR_CH4_NETMOD": "ofi", "FI_PROVIDER": "tcp"}
    assert transport_env({"UCX_TLS": "tcp"}) == {}


def test_a_host_that_does_not_resolve_is_refused_before_any_wait():
    cluster = cluster_from_env(
        {
            "PADDLE_TRAINER_ID": "1",
            "PADDLE_TRAINERS_NUM": "2",
            "PADDLE_TRAINER_ENDPOINTS": "no-such-host.invalid:6170,127.0.0.1:6171",
        }
    )
    with pytest.raises(
        PeError,
        match=r"^trainer 0 at no-such-host\.invalid:6170: the host 'no-such-host\.invalid' "
        r"does not resolve \(.+\): give an IP address",
    ):
        check_hosts(cluster, 10)
    check_hosts(
        cluster_from_env(
            {
                "PADDLE_TRAINER_ID": "1",
                "PADDLE_TRAINERS_NUM": "2",
                "PADDLE_TRAINER_ENDPOINTS": "127.0.0.1:6170,localhost:6171",
            }
        ),
        10,
    )


def test_a_trainer_count_without_endpoints_is_one_process_as_in_paddle():
    env = {"PADDLE_TRAINERS_NUM": "2"}
    assert cluster_from_env(env) is None
    assert (
        "one process runs the script, as in Paddle (readers such as DistributedBatchSampler take trainer "
        "0's share of 2)" in single_process_note(env)
    )
    assert single_process_note({}) is None and single_process_note({"PADDLE_TRAINERS_NUM": "1"}) is None
