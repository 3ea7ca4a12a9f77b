"""Helpers of tests/cli/test_rendezvous.py (no tests here): Fluid's environment for each role of a
cluster, each role started as its own `pe fluid` process (on loopback, or inside a network namespace
of its own), and network namespaces joined by veth pairs to a bridge, made and removed by the test."""

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid

from tests.cli.test_helpers import REPO

SCRIPT = os.path.join(REPO, "tests", "rendezvous_case", "fluid_roles.py")


_HANDED_OUT = set()


def free_port(span=16):
    """A port P such that P .. P+span-1 are free now, below Linux's ephemeral range (32768-60999):
    a port the kernel hands out (bind to 0, or any client socket's own port) could be taken again
    by another connection before a role listens on it, or by a neighbouring cluster's P+1. No port
    is handed out twice in one process; ranges are drawn at random, so test workers rarely meet."""
    rng = random.Random()
    for _ in range(500):
        port = rng.randrange(20000, 32000 - span)
        ports = range(port, port + span)
        if _HANDED_OUT.isdisjoint(ports) and all(_bindable(p) for p in ports):
            _HANDED_OUT.update(ports)
            return port
    raise RuntimeError(f"no {span} free ports in a row found in 20000-32000")


def _bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def pserver_envs(ips, port, trainers=2):
    """Fluid's environment of 1 parameter server (ips[0]) and ``trainers`` trainers (ips[1:])."""
    server = f"{ips[0]}:{port}"
    common = dict(PADDLE_PSERVER_ENDPOINTS=server, PADDLE_TRAINERS_NUM=str(trainers))
    envs = [dict(common, PADDLE_TRAINING_ROLE="PSERVER", PADDLE_CURRENT_ENDPOINT=server)]
    for i in range(trainers):
        envs.append(
            dict(
                common,
                PADDLE_TRAINING_ROLE="TRAINER",
                PADDLE_TRAINER_ID=str(i),
                PADDLE_CURRENT_ENDPOINT=f"{ips[1 + i]}:{port + 1 + i}",
            )
        )
    return envs


def collective_envs(ips, port):
    """Fluid's environment of len(ips) collective (nccl2) trainers, trainer i at ips[i]."""
    endpoints = [f"{ip}:{port + i}" for i, ip in enumerate(ips)]
    return [
        dict(
            PADDLE_TRAINING_ROLE="TRAINER",
            PADDLE_TRAINER_ID=str(i),
            PADDLE_TRAINERS_NUM=str(len(ips)),
            PADDLE_TRAINER_ENDPOINTS=",".join(endpoints),
            PADDLE_CURRENT_ENDPOINT=endpoints[i],
        )
        for i in range(len(ips))
    ]


class Roles:
    """Each role a `pe fluid fluid_roles.py OUT [FAULT]` process of its own (inside namespace
    ``namespaces[i]`` when given); every process carries ``mark`` in its environment. ``argvs[i]``, when
    given, is role i's `pe` arguments instead (another command or script)."""

    def __init__(self, envs, out, fault="", namespaces=None, extra=None, argvs=None):
        self.mark = uuid.uuid4().hex
        self.procs, self.namespaces = [], namespaces
        for i, role_env in enumerate(envs):
            env = dict(
                os.environ, PYTHONPATH=REPO, PE_NUM_THREADS="1", PE_TEST_MARK=self.mark, **role_env, **(extra or {})
            )
            env.pop("PE_DEBUG", None)
            args = [str(a) for a in argvs[i]] if argvs else ["fluid", SCRIPT, str(out), fault]
            argv = [sys.executable, "-m", "pe_cli"] + args
            if namespaces:
                argv = ["ip", "netns", "exec", namespaces[i]] + argv
            self.procs.append(
                subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            )
        self.outputs = None

    def pid_of(self, index, timeout=60):
        """The pid the script of role ``index`` prints first (the rank itself, under its guard)."""
        line = self.procs[index].stdout.readline()
        assert line.startswith("pid "), line
        return int(line.split()[1])

    def wait(self, timeout):
        """[(returncode, stdout, stderr)] of every role; kills what is left after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        self.outputs = []
        for proc in self.procs:
            try:
                out, err = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.kill()
                out, err = proc.communicate()
            self.outputs.append((proc.returncode, out, err))
        return self.outputs

    def kill(self):
        for pid in left_behind(self.mark):
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def left_behind(mark):
    """Processes still alive whose environment holds PE_TEST_MARK=mark."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"PE_TEST_MARK={mark}".encode() in f.read():
                    left.append(pid)
        except OSError:
            pass
    return left


def described(pids):
    """'pid: command line' of each of ``pids`` (what an assertion that none is left shows)."""
    lines = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace")
            lines.append(f"{pid}: {command}")
        except OSError:
            lines.append(f"{pid}: (gone)")
    return "\n".join(lines)


def none_left(mark, within=5):
    deadline = time.monotonic() + within
    while left_behind(mark) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left_behind(mark) == []


def netns_unavailable():
    """Why network namespaces cannot be made here (None when they can)."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "no `ip` command (iproute2)"
    probe = f"pe{uuid.uuid4().hex[:8]}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns add failed: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


class Namespaces:
    """``count`` network namespaces, namespace i with address 10.213.0.(i+1)/24 on a veth whose peer is
    on a bridge in a hub namespace (also the test's own): three hosts on one LAN. ``remove()``
    deletes them all (the veths go with them)."""

    def __init__(self, count):
        tag = uuid.uuid4().hex[:6]
        self.hub, self.names = f"pe{tag}hub", [f"pe{tag}n{i}" for i in range(count)]
        self.ips = [f"10.213.0.{i + 1}" for i in range(count)]
        try:
            self._run("ip", "netns", "add", self.hub)
            self._in(self.hub, "ip", "link", "add", "br0", "type", "bridge")
            self._in(self.hub, "ip", "link", "set", "br0", "up")
            for i, name in enumerate(self.names):
                inner, outer = f"pe{tag}v{i}", f"pe{tag}b{i}"
                self._run("ip", "netns", "add", name)
                self._run(
                    "ip", "link", "add", inner, "netns", name, "type", "veth", "peer", "name", outer, "netns", self.hub
                )
                self._in(self.hub, "ip", "link", "set", outer, "master", "br0")
                self._in(self.hub, "ip", "link", "set", outer, "up")
                self._in(name, "ip", "addr", "add", f"{self.ips[i]}/24", "dev", inner)
                self._in(name, "ip", "link", "set", inner, "up")
                self._in(name, "ip", "link", "set", "lo", "up")
        except BaseException:
            self.remove()
            raise

    @staticmethod
    def _run(*argv):
        subprocess.run(argv, check=True, capture_output=True, text=True)

    def _in(self, namespace, *argv):
        self._run("ip", "netns", "exec", namespace, *argv)

    def kill_processes(self, index):
        """kill -9 every process inside namespace ``index`` (its host going down)."""
        pids = subprocess.run(["ip", "netns", "pids", self.names[index]], capture_output=True, text=True).stdout
        for pid in pids.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass

    def remove(self):
        for name in self.names + [self.hub]:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
