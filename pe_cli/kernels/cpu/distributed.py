"""Kernels of parameter-server mode's ops (pe_cli/ops/distributed.py), over pe_cli/kernels/pserver_link.py."""
from ...base.errors import PeError
from .. import pserver_link


def _link(attrs):
    return pserver_link.trainer_link(attrs["endpoints"], attrs["trainer_id"], attrs["trainers"])


def send(ins, attrs):
    link = _link(attrs)
    for array, endpoint, tag in zip(ins["X"], attrs["epmap"], attrs["tags"]):
        link.send(array, endpoint, tag)
    return {}


def send_barrier(ins, attrs):
    _link(attrs).wait_sends()
    return {}


def recv(ins, attrs, to_device=None):
    link = _link(attrs)
    out = [link.recv(ep, tag, tuple(shape), attrs["dtype"])
           for ep, tag, shape in zip(attrs["epmap"], attrs["tags"], attrs["shapes"])]
    return {"Out": out if to_device is None else [to_device(a) for a in out]}


def fetch_barrier(ins, attrs):
    return {}


def listen_and_serv(ins, attrs):
    raise PeError("listen_and_serv runs only as a parameter server's program: exe.run(pserver_program) "
                  "with the program of DistributeTranspiler.get_pserver_program(endpoint)")
