"""Roles started on their own (issue 58, items 1 and 3): each role of a cluster is its own `pe fluid`
process with Fluid's environment (no shared mpiexec); they find each other at the endpoints
(pe_cli/distributed/rendezvous.py) and train as under one mpiexec: 1 parameter server + 2 trainers, and
2 collective trainers, equal one process within 1e-5 after 10 steps, on loopback and with each role
in a network namespace of its own (its own IP). A role that fails (an exception, os._exit, kill -9,
its whole namespace killed) ends every other process within 30 s with one line naming its rank,
host and cause; a role that never comes ends the others, naming its endpoint. Issue 78: a root that
accepts and never answers ends the role within PE_RENDEZVOUS_SECONDS, naming that cause; endpoints
that cannot work are refused before any wait; PADDLE_TRAINERS_NUM alone is one process, as in Paddle."""

import re
import socket
import threading
import time

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.distributed.rank_guard import mpiexec
from tests.cli.rendezvous_roles import (
    Namespaces,
    Roles,
    collective_envs,
    described,
    free_port,
    left_behind,
    netns_unavailable,
    none_left,
    pserver_envs,
)

try:
    mpiexec()
    HAVE_MPI = True
except PeError:
    HAVE_MPI = False
pytestmark = pytest.mark.skipif(not HAVE_MPI, reason="no mpiexec (the mpi extra)")
LOOPBACK = ["127.0.0.1"] * 3
HOST = re.escape(socket.gethostname())


@pytest.fixture(scope="module")
def one_process(tmp_path_factory):
    """``one_process()``: the parameters of the script run alone on the whole batches (started in the
    background when the first test asks, so that it runs beside that test's roles)."""
    out = tmp_path_factory.mktemp("alone") / "params.npz"
    roles, done = Roles([{}], out), {}

    def params():
        if not done:
            ((code, _, err),) = roles.wait(120)
            assert code == 0, err
            done.update(np.load(out))
        return done

    yield params
    roles.kill()


@pytest.fixture(scope="module")
def namespaces():
    reason = netns_unavailable()
    if reason:
        pytest.skip(reason)
    made = Namespaces(3)
    yield made
    made.remove()


def _assert_equal(params, expected):
    expected = expected()
    assert sorted(params) == sorted(expected) and expected
    for name, value in expected.items():
        np.testing.assert_allclose(params[name], value, rtol=0, atol=1e-5, err_msg=name)


def _train(clusters, tmp_path):
    """Starts every cluster of ``clusters`` ([(envs, namespace names or None)]) at once (they
    share nothing: other ports or other namespaces); the parameters of each cluster's trainer 0."""
    started = [Roles(envs, tmp_path / f"params{i}.npz", namespaces=names) for i, (envs, names) in enumerate(clusters)]
    for roles in started:
        for code, _, err in roles.wait(120):
            assert code == 0, err
        assert none_left(roles.mark), described(left_behind(roles.mark))
    return [dict(np.load(tmp_path / f"params{i}.npz")) for i in range(len(clusters))]


def test_one_server_two_trainers_and_two_collective_trainers_on_loopback_equal_one_process(one_process, tmp_path):
    port = free_port()  # the collective trainers' root listens at port + 10
    for params in _train(
        [(pserver_envs(LOOPBACK, port), None), (collective_envs(LOOPBACK[:2], port + 10), None)], tmp_path
    ):
        _assert_equal(params, one_process)


def test_roles_in_network_namespaces_of_their_own_equal_one_process(one_process, namespaces, tmp_path):
    ips, names = namespaces.ips, namespaces.names
    for params in _train([(pserver_envs(ips, 6174), names), (collective_envs(ips[:2], 6170), names[:2])], tmp_path):
        _assert_equal(params, one_process)


CAUSES = {
    "raise": r"RuntimeError: trainer 1 broke at step 2 \(exit code 1\)",
    "exit": r"exited with code 3 \(no Python error: os\._exit, or a crash in native code\)",
    "kill": r"killed by signal 9 \(SIGKILL\)",
}


def _one_line_each(outputs, pattern, skip=()):
    for i, (code, _, err) in enumerate(outputs):
        if i in skip:
            continue
        assert code != 0, err
        named = [line for line in err.splitlines() if line.startswith("pe: ")]
        assert len(named) == 1, err
        assert re.fullmatch(pattern, named[0]), named[0]


# Each fault once and each mode once (the guard and the watch are the same code in both modes).
FAULTS = [("collective", "raise"), ("pserver", "exit"), ("collective", "kill")]


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """{case: (envs, root port, start time, Roles)}: the clusters of the test below, started at once
    when the first case asks (they share nothing)."""
    out, started = tmp_path_factory.mktemp("failing"), {}
    for mode, fault in FAULTS:
        port = free_port()
        envs = pserver_envs(LOOPBACK, port) if mode == "pserver" else collective_envs(LOOPBACK[:2], port)
        started[mode, fault] = envs, port, time.monotonic(), Roles(envs, out / f"{mode}-{fault}.npz", fault)
    yield started
    for *_, roles in started.values():
        roles.kill()


def test_a_role_that_never_comes_ends_the_others_naming_its_endpoint(tmp_path):
    port = free_port()
    envs = collective_envs(LOOPBACK, port)[:2]  # trainer 2 of 3 never starts
    start = time.monotonic()
    roles = Roles(envs, tmp_path / "p.npz", extra={"PE_RENDEZVOUS_SECONDS": "1"})
    outputs = roles.wait(60)
    assert time.monotonic() - start < 30
    _one_line_each(
        outputs,
        rf"pe: rendezvous: trainer 2 at 127\.0\.0\.1:{port + 2} never connected to "
        rf"127\.0\.0\.1:{port} within 1 s \(PE_RENDEZVOUS_SECONDS\); stopping",
    )
    assert none_left(roles.mark)


@pytest.mark.parametrize("mode, fault", FAULTS)
def test_a_failing_role_ends_every_role_naming_rank_host_and_cause(failing, mode, fault):
    envs, port, start, roles = failing[mode, fault]
    outputs = roles.wait(90)
    took = time.monotonic() - start  # (at most: the clusters run at once, the tests wait in turn)
    rank = 2 if mode == "pserver" else 1
    who = rf"trainer 1 at 127\.0\.0\.1:{port + 2 if mode == 'pserver' else port + 1}"
    _one_line_each(
        outputs,
        rf"pe: rank {rank} of {len(envs)} \({who}, pid \d+ on {HOST}\) failed: "
        rf"{CAUSES[fault]}; stopping every rank",
    )
    assert took < 60, took  # started (a few seconds), failed at step 2, every role ended
    assert none_left(roles.mark)


def test_a_namespace_killed_ends_the_roles_in_the_others_naming_it(namespaces, tmp_path):
    roles = Roles(pserver_envs(namespaces.ips, 6174), tmp_path / "p.npz", "forever", namespaces.names)
    for i in range(3):
        roles.pid_of(i)  # every role is up (the trainers train for ever)
    time.sleep(2)
    killed = time.monotonic()
    namespaces.kill_processes(0)  # the parameter server's host goes down
    outputs = roles.wait(60)
    assert time.monotonic() - killed < 30
    _one_line_each(
        outputs,
        rf"pe: rank 0 of 3 \(pserver 0 at 10\.213\.0\.1:6174, pid \d+ on {HOST}\) was lost: "
        r"its connection closed without a word .*; stopping every rank",
        skip=(0,),
    )
    assert none_left(roles.mark)


def _silent_listener(port):
    """A program at the root's port that accepts every connection and never says a word (issue 78)."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(8)
    held = []
    threading.Thread(target=lambda: [held.append(server.accept()) for _ in iter(int, 1)], daemon=True).start()
    return server


def test_a_root_that_accepts_and_never_answers_ends_the_role_within_the_bound_naming_it(tmp_path):
    port = free_port()
    server = _silent_listener(port)
    try:
        start = time.monotonic()
        roles = Roles(collective_envs(LOOPBACK[:2], port)[1:], tmp_path / "p.npz", extra={"PE_RENDEZVOUS_SECONDS": "2"})
        outputs = roles.wait(60)
        took = time.monotonic() - start
    finally:
        server.close()
    _one_line_each(
        outputs,
        rf"pe: rendezvous: trainer 0 at 127\.0\.0\.1:{port} accepted the connection but sent "
        r"nothing in 2 s \(PE_RENDEZVOUS_SECONDS\): another program may be listening on that "
        r"port; stopping",
    )
    assert took < 15, took  # the bound (2 s) and two starts of pe, not 2 + 30 s of the MPI watchdog
    assert none_left(roles.mark)


def test_endpoints_that_cannot_work_are_refused_before_any_wait(tmp_path):
    envs = collective_envs(LOOPBACK[:2], 6170)
    envs[1]["PADDLE_TRAINER_ENDPOINTS"] = "127.0.0.1:99999,127.0.0.1:6171"
    start = time.monotonic()
    outputs = Roles(envs[1:], tmp_path / "p.npz", extra={"PE_RENDEZVOUS_SECONDS": "60"}).wait(60)
    assert time.monotonic() - start < 20  # not the 60 s bound
    ((code, _, err),) = outputs
    assert code != 0 and err.strip() == (
        "pe: error: PADDLE_TRAINER_ENDPOINTS endpoint 127.0.0.1:99999: port 99999 is not a TCP port (1 to 65535)"
    ), err


def test_a_trainer_count_alone_runs_the_script_as_one_process_as_paddle_does(tmp_path):
    script = tmp_path / "share.py"
    script.write_text(
        "import numpy as np\nimport paddle\n"
        "class D(paddle.io.Dataset):\n"
        "    def __getitem__(self, i):\n        return np.array([i], 'float32')\n"
        "    def __len__(self):\n        return 8\n"
        "print(list(paddle.io.DistributedBatchSampler(D(), batch_size=2)))\n"
    )
    ((code, out, err),) = Roles([{"PADDLE_TRAINERS_NUM": "2"}], None, argvs=[["fluid", script]]).wait(60)
    assert code == 0, err
    assert out.strip() == "[[0, 1], [4, 5]]"  # trainer 0's share of 2, as Paddle 2.6.2 prints
    assert (
        err.strip().startswith("pe: PADDLE_TRAINERS_NUM=2 without PADDLE_TRAINER_ENDPOINTS")
        and len(err.strip().splitlines()) == 1
    ), err


def test_a_connection_that_says_nothing_to_the_root_is_named_when_the_root_gives_up(tmp_path):
    port = free_port()
    roles = Roles(collective_envs(LOOPBACK[:2], port)[:1], tmp_path / "p.npz", extra={"PE_RENDEZVOUS_SECONDS": "3"})
    deadline, stranger = time.monotonic() + 30, None
    while stranger is None and time.monotonic() < deadline:  # trainer 1 never comes; a stranger does
        try:
            stranger = socket.create_connection(("127.0.0.1", port), timeout=1)
        except OSError:
            time.sleep(0.1)
    try:
        outputs = roles.wait(60)
    finally:
        stranger and stranger.close()
    _one_line_each(
        outputs,
        rf"pe: rendezvous: trainer 1 at 127\.0\.0\.1:{port + 1} never connected to "
        rf"127\.0\.0\.1:{port} within 3 s \(PE_RENDEZVOUS_SECONDS\); 1 connection\(s\) said no "
        r"HELLO \(from 127\.0\.0\.1:\d+: another program\?\); stopping",
    )
    assert none_left(roles.mark)


def test_a_rendezvous_wait_without_a_bound_is_refused():
    """PE_RENDEZVOUS_SECONDS=inf (or nan) was a wait for ever; it is refused in one line (in-process)."""
    from pe_cli.distributed.rendezvous import timeout_s

    assert timeout_s({"PE_RENDEZVOUS_SECONDS": "0.2"}) == 1.0 and timeout_s({}) == 60.0
    for value in ("inf", "-inf", "nan", "soon"):
        with pytest.raises(PeError, match=f"PE_RENDEZVOUS_SECONDS='{value}': give the rendezvous's wait in seconds"):
            timeout_s({"PE_RENDEZVOUS_SECONDS": value})
