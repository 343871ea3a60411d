"""Hostile, speaking WebSocket (``speaks=ws``): from behind its relay, tries to reach
PostgreSQL, the server's port and an outside address directly, opens more connections
than the relay carries (through the relay and straight to its Unix socket), reports each
result on its standard error, then exits (and is started again).
argv[1]: the server's port."""
import os
import socket
import sys

PORT = int(sys.argv[1])


def report(text):
    print("REPORT " + text, file=sys.stderr, flush=True)


def closed_at_once(sock):
    sock.settimeout(10)
    try:
        return sock.recv(100) == b""
    except OSError:
        return True


token = os.environ.get("ARENA_TOKEN", "")
report(f"token {token.split('.')[0]} url {os.environ.get('ARENA_URL')}")
for host, port in [("127.0.0.1", 5432), ("127.0.0.1", PORT), ("1.1.1.1", 443)]:
    try:
        with socket.create_connection((host, port), timeout=2):
            report(f"connected {host}:{port}")
    except OSError as error:
        report(f"refused {host}:{port} {error}")
first, second = (socket.create_connection(("127.0.0.1", 8765), timeout=5) for _ in range(2))
third = socket.create_connection(("127.0.0.1", 8765), timeout=5)
report(f"third through the relay closed {closed_at_once(third)}")
direct = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
direct.connect("/run/arena/arena.sock")
report(f"third straight to the socket closed {closed_at_once(direct)}")
first.sendall(b"GET /api/ladders HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # its API
first.settimeout(10)
report(f"plain HTTP answered {first.recv(12)!r}")
second.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nUpgrade: websocket\r\n"
               b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: arena.v1.json\r\n\r\n")
second.settimeout(10)
report(f"WebSocket handshake answered {second.recv(12)!r}")
report("done")
