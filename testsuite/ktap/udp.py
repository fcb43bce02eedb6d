# A loopback UDP workload for the udp tapset test: a datagram from
# 127.0.0.1:PORT+1 (a connected socket) to 127.0.0.1:PORT, then the
# sender disconnected with connect(AF_UNSPEC). argv[1]: PORT.
import ctypes
import socket
import sys

PORT = int(sys.argv[1])
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(('127.0.0.1', PORT))
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
tx.bind(('127.0.0.1', PORT + 1))
tx.connect(('127.0.0.1', PORT))
tx.send(b'udp!')
assert rx.recv(100) == b'udp!'
unspec = ctypes.create_string_buffer(16)	# a sockaddr of family 0
assert ctypes.CDLL(None, use_errno=True).connect(tx.fileno(), unspec, 16) == 0
tx.close()
rx.close()
