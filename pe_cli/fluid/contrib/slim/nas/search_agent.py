"""``paddle.fluid.contrib.slim.nas.search_agent``: SearchAgent, the client of a ControllerServer
(controller_server.py), as Fluid 1.8.5's: ``update(tokens, reward)`` reports a reward and
``next_tokens()`` asks for tokens, each over its own connection, each answered with the next tokens.
A server that does not answer within ``timeout`` seconds is a one-line ConnectionError."""

import logging
import socket

from ....log_helper import get_logger
from .controller_server import tokens_text

__all__ = ["SearchAgent"]

_logger = get_logger(__name__, logging.INFO, fmt="%(asctime)s-%(levelname)s: %(message)s")


class SearchAgent:
    def __init__(self, server_ip=None, server_port=None, key=None, timeout=30.0):
        self.server_ip, self.server_port = server_ip, server_port
        self.socket_client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._key = key
        self._timeout = timeout

    def _ask(self, message):
        try:
            with socket.create_connection((self.server_ip, self.server_port), timeout=self._timeout) as client:
                client.send(message.encode())
                answer = client.recv(1024).decode()
        except OSError as e:
            raise ConnectionError(
                f"SearchAgent: no answer from the controller server at {self.server_ip}:"
                f"{self.server_port} ({e}); is the LightNAS server (is_server=True) running?"
            ) from None
        if not answer:
            raise ConnectionError(
                f"SearchAgent: the controller server at {self.server_ip}:{self.server_port} "
                "closed the connection without tokens (its key differs, or its search ended)"
            )
        return [int(token) for token in answer.strip("\n").split(",")]

    def update(self, tokens, reward):
        """Reports ``reward`` for ``tokens``; returns the next tokens."""
        return self._ask(f"{self._key}\t{tokens_text(tokens)}\t{reward}")

    def next_tokens(self):
        return self._ask("next_tokens")
