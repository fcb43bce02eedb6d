# The workload of the netdev test: a dummy device d0 added, given a MAC
# address and an MTU, brought up, queried with ifconfig's ioctls and
# /proc/net/dev, made promiscuous by a packet socket, brought down and
# deleted; then loopback TCP traffic (net.py).
ip link add d0 type dummy
ip link set d0 address 02:00:00:00:00:01
ip link set d0 mtu 1400
ip link set d0 up
busybox ifconfig d0 > /dev/null
cat /proc/net/dev > /dev/null
/usr/bin/python3 -c "
import socket, struct
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
mreq = struct.pack('iHH8s', socket.if_nametoindex('d0'), 1, 0, b'')
s.setsockopt(263, 1, mreq)
s.setsockopt(263, 2, mreq)
s.close()
"
ip link set d0 down
ip link del d0
/usr/bin/python3 net.py 5040
