"""Hostile: tries to reach the server's port, PostgreSQL on 127.0.0.1:5432 and outside
addresses (TCP and UDP, names and numbers), reports each result, then plays an illegal move.
argv[1]: the server's port."""
import socket
import sys

PORT = int(sys.argv[1])
TARGETS = [("127.0.0.1", PORT), ("127.0.0.1", 5432), ("::1", 5432), ("1.1.1.1", 443),
           ("8.8.8.8", 53), ("example.com", 80)]


def report(text):
    print("REPORT " + text, file=sys.stderr, flush=True)


for line in sys.stdin:
    if line.startswith("turn "):
        for host, port in TARGETS:
            try:
                with socket.create_connection((host, port), timeout=2):
                    report(f"connected {host}:{port}")
            except OSError as error:
                report(f"refused {host}:{port} {error}")
        try:
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            udp.sendto(b"x", ("8.8.8.8", 53))
            report("sent udp 8.8.8.8:53")
        except OSError as error:
            report(f"refused udp {error}")
        try:
            unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            unix.connect("/run/postgresql/.s.PGSQL.5432")
            report("connected unix postgresql")
        except OSError as error:
            report(f"refused unix postgresql {error}")
        interfaces = [name for _, name in socket.if_nameindex()]
        report(f"interfaces {','.join(interfaces)}")
        report("done")
        print("no move", flush=True)  # and loses at once
