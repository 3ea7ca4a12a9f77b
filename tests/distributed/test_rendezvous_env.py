"""Where Fluid's environment puts a role started on its own (pe_cli/distributed/rendezvous.py): its rank
among every process (servers first, in the order of their endpoints; trainer i after them; in
collective mode trainer i is rank i), the root's endpoint, and one-line errors for an environment
that cannot work. The rendezvous itself runs in tests/cli/test_rendezvous.py."""
import pytest

from pe_cli.base.errors import PeError
from pe_cli.distributed.rendezvous import cluster_from_env, connect_from_env, rank_env, transport_env

SERVERS = "10.0.0.1:6174,10.0.0.2:6174"


def test_pserver_mode_ranks_the_servers_first_then_the_trainers():
    server = cluster_from_env({"PADDLE_TRAINING_ROLE": "PSERVER", "PADDLE_PSERVER_ENDPOINTS": SERVERS,
                               "PADDLE_CURRENT_ENDPOINT": "10.0.0.2:6174", "PADDLE_TRAINERS_NUM": "2"})
    assert (server.rank, server.size, server.endpoints[0]) == (1, 4, "10.0.0.1:6174")
    assert server.names == ("pserver 0", "pserver 1", "trainer 0", "trainer 1")
    trainer = cluster_from_env({"TRAINING_ROLE": "TRAINER", "PADDLE_PSERVERS_IP_PORT_LIST": SERVERS,
                                "PADDLE_TRAINER_ID": "1", "PADDLE_TRAINERS_NUM": "2",
                                "PADDLE_CURRENT_ENDPOINT": "10.0.0.4:6174"})
    assert (trainer.rank, trainer.who(3)) == (3, "trainer 1 at 10.0.0.4:6174")
    assert rank_env(trainer) == {"PE_RENDEZVOUS_RANK": "3", "PE_RENDEZVOUS_SIZE": "4",
                                 "PE_RENDEZVOUS_ROLE": "trainer 1 at 10.0.0.4:6174"}


def test_the_transpiler_examples_spelling_with_pod_ip_and_paddle_port():
    env = {"PADDLE_TRAINING_ROLE": "PSERVER", "PADDLE_PSERVERS": "10.0.0.1,10.0.0.2", "PADDLE_PORT": "6174",
           "POD_IP": "10.0.0.2", "PADDLE_TRAINERS": "3"}
    cluster = cluster_from_env(env)
    assert (cluster.rank, cluster.size, cluster.endpoints[:2]) == (1, 5, ("10.0.0.1:6174", "10.0.0.2:6174"))


def test_collective_mode_ranks_trainers_by_id():
    eps = "10.0.0.1:6170,10.0.0.2:6170,10.0.0.3:6170"
    cluster = cluster_from_env({"PADDLE_TRAINER_ID": "2", "PADDLE_TRAINERS_NUM": "3",
                                "PADDLE_TRAINER_ENDPOINTS": eps, "PADDLE_CURRENT_ENDPOINT": "10.0.0.3:6170"})
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


@pytest.mark.parametrize("env, says", [
    ({"PADDLE_TRAINING_ROLE": "PSERVER", "PADDLE_PSERVER_ENDPOINTS": SERVERS, "PADDLE_CURRENT_ENDPOINT": "x:1"},
     "PADDLE_CURRENT_ENDPOINT='x:1' is not one of PADDLE_PSERVER_ENDPOINTS"),
    ({"PADDLE_TRAINING_ROLE": "PSERVER"}, "PADDLE_PSERVER_ENDPOINTS is not set"),
    ({"PADDLE_TRAINING_ROLE": "WORKER"}, "it must be PSERVER or TRAINER"),
    ({"PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ENDPOINTS": "a:1"}, "lists 1 endpoint(s)"),
    ({"PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ID": "2", "PADDLE_TRAINER_ENDPOINTS": "a:1,b:1",
      "PADDLE_CURRENT_ENDPOINT": "a:1"},
     "PADDLE_TRAINER_ID=2 is not below PADDLE_TRAINERS_NUM=2"),
    ({"PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ID": "1", "PADDLE_TRAINER_ENDPOINTS": "a:1,b:1",
      "PADDLE_CURRENT_ENDPOINT": "a:1"}, "names b:1 as trainer 1"),
])
def test_an_environment_that_cannot_work_is_one_line(env, says):
    with pytest.raises(PeError) as e:
        cluster_from_env(env)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_the_transport_is_ofi_tcp_unless_the_environment_chooses():
    assert transport_env({}) == {"MPIR_CVAR_CH4_NETMOD": "ofi", "FI_PROVIDER": "tcp"}
    assert transport_env({"UCX_TLS": "tcp"}) == {}
