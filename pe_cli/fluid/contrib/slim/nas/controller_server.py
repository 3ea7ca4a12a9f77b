"""``paddle.fluid.contrib.slim.nas.controller_server``: ControllerServer, a controller (searcher's
SAController) served over a TCP socket, as Fluid 1.8.5's: a request ``next_tokens`` answers the
controller's next tokens; ``<key>\\t<tokens>\\t<reward>`` updates the controller with that reward,
then answers the next tokens (tokens are comma-separated integers). It serves from a thread until
``search_steps`` updates have been made or ``close()`` is called. Bounded where Fluid's blocks: the
thread is a daemon, it looks for ``close()`` every ``poll`` seconds, and a client that sends nothing
for ``timeout`` seconds is dropped."""

import logging
import socket
from threading import Thread

from ....log_helper import get_logger

__all__ = ["ControllerServer"]

_logger = get_logger(__name__, logging.INFO, fmt="ControllerServer-%(asctime)s-%(levelname)s: %(message)s")


def tokens_text(tokens):
    return ",".join(str(token) for token in tokens)


class ControllerServer:
    def __init__(
        self, controller=None, address=("", 0), max_client_num=100, search_steps=None, key=None, poll=0.5, timeout=30.0
    ):
        self._controller = controller
        self._address = address
        self._max_client_num = max_client_num
        self._search_steps = search_steps
        self._closed = False
        self._ip, self._port = address[0], address[1]
        self._key = key
        self._poll, self._timeout = poll, timeout
        self._socket_server = None

    def start(self):
        """Listens on the address (port 0: a free one, ``port()`` says which) and serves from a thread;
        returns the thread's name, as Fluid's."""
        self._socket_server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._socket_server.bind(self._address)
        except OSError as e:
            self._socket_server.close()
            raise OSError(
                f"ControllerServer: cannot listen on {self._address[0] or '*'}:{self._address[1]}: "
                f"{e.strerror}; give another address=(ip, port), or port 0 for a free one"
            ) from None
        self._socket_server.listen(self._max_client_num)
        self._socket_server.settimeout(self._poll)
        self._ip, self._port = self._socket_server.getsockname()[:2]
        _logger.info("listen on: [%s:%s]", self._ip, self._port)
        thread = Thread(target=self.run, daemon=True)
        thread.start()
        return str(thread)

    def close(self):
        """Stops serving (within ``poll`` seconds)."""
        self._closed = True

    def port(self):
        return self._port

    def ip(self):
        return self._ip

    def _searching(self):
        return (self._search_steps is None or self._controller._iter < self._search_steps) and not self._closed

    def run(self):
        _logger.info("Controller Server run...")
        try:
            while self._searching():
                try:
                    conn, addr = self._socket_server.accept()
                except socket.timeout:
                    continue
                with conn:
                    conn.settimeout(self._timeout)
                    self._answer(conn, addr)
        finally:
            self._socket_server.close()
            _logger.info("server closed!")

    def _answer(self, conn, addr):
        try:
            message = conn.recv(1024).decode()
        except (socket.timeout, OSError) as e:
            _logger.info("dropped %s: %s", addr, e)
            return
        if message.strip("\n") != "next_tokens":
            _logger.info("recv message from %s: [%s]", addr, message)
            parts = message.strip("\n").split("\t")
            if len(parts) < 3 or parts[0] != self._key:
                _logger.info("recv noise from %s: [%s]", addr, message)
                return
            self._controller.update([int(t) for t in parts[1].split(",")], float(parts[2]))
        tokens = tokens_text(self._controller.next_tokens())
        conn.send(tokens.encode())
        _logger.info("send message to %s: [%s]", addr, tokens)
