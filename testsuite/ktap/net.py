# A loopback TCP workload for the network tapset tests: an IPv4
# connection (TCP_NODELAY set, send()/recv(), write()/read() on the
# sockets, closed with a zero linger: a reset through tcp_disconnect())
# and an IPv6 one (IPV6_TCLASS set, send()/recv(), closed normally).
# argv[1]: the first of the four ports it uses.
import os
import socket
import struct
import sys

PORT = int(sys.argv[1])


def pair(family, host, port):
    srv = socket.socket(family, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, port))
    srv.listen(1)
    cli = socket.socket(family, socket.SOCK_STREAM)
    cli.bind((host, port + 1))
    cli.connect((host, port))
    conn, _ = srv.accept()
    srv.close()
    return cli, conn


cli, conn = pair(socket.AF_INET, '127.0.0.1', PORT)
cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
cli.send(b'hello')
assert conn.recv(100) == b'hello'
os.write(cli.fileno(), b'abc')
assert os.read(conn.fileno(), 100) == b'abc'
cli.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
cli.close()
conn.close()
cli, conn = pair(socket.AF_INET6, '::1', PORT + 2)
cli.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, 0)
cli.send(b'six')
assert conn.recv(100) == b'six'
cli.close()
conn.close()
