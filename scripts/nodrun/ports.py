"""Free ports, and whether a port is taken by something listening (a
connection in TIME-WAIT from a nod that just stopped is not)."""

import pathlib
import random
import socket

# Picked below the kernel's ephemeral range: a port the kernel picks (bind
# to 0) comes from the range every outgoing connection's local port comes
# from, and a connection could take it between the pick and the server's bind.
LOWEST = 10000


def _ephemeral_start() -> int:
    try:
        return int(pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A loopback port nobody listens on now, for a server started next."""
    highest = _ephemeral_start() - 1
    for _ in range(100) if highest > LOWEST else ():
        port = random.randint(LOWEST, highest)
        if port_is_free("127.0.0.1", port):
            return port
    with socket.socket() as sock:  # no room below the range: the kernel's pick
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
