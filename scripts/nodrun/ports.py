"""Free ports, and whether a port is taken by something listening (a
connection in TIME-WAIT from a nod that just stopped is not)."""

import socket


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_is_free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        # As the servers themselves bind: TIME-WAIT leftovers don't count.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True
