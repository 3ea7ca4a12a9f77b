"""``paddle.fluid.transpiler.details.checkport``: ``wait_server_ready(endpoints)`` blocks until every
``ip:port`` accepts a TCP connection, saying on stderr which are not ready every 3 seconds."""

import socket
import sys
import time
from contextlib import closing

string_types = (str,)


def _ready(endpoint):
    host, port = endpoint.rsplit(":", 1)
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.settimeout(2)
        return sock.connect_ex((host, int(port))) == 0


def wait_server_ready(endpoints):
    assert not isinstance(endpoints, string_types)
    while True:
        waiting = [ep for ep in endpoints if not _ready(ep)]
        if not waiting:
            return
        sys.stderr.write("server not ready, wait 3 sec to retry...\n")
        sys.stderr.write(f"not ready endpoints:{waiting}\n")
        sys.stderr.flush()
        time.sleep(3)
