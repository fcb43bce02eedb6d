# argstr of the System V IPC, socket, clock, timer and wait calls
# (tapsets/linux/sc_flags_ipc.stp and the syscalls.tbl lines of msg*, semget,
# shm*, socket, socketpair, [gs]etsockopt, shutdown, clock_*, timer_create,
# timerfd_create, waitid, getrusage, ppoll, pselect6) against SystemTap 4.8:
# each *_UPSTREAM string is what 4.8's module printed in the guest for the
# same script and program (its user addresses, the same here, as ADDR).
# Calls that could harm the guest get values that fail first (settime with
# a bad nanosecond count, timers on clocks they refuse).
import re

import pytest

from test_listing_syscalls import PRELUDE, run_watched, watch

IPC_SCRIPT = watch('msgget', 'msgget', 'msgsnd', 'msgrcv', 'msgctl', 'semget',
                   'shmget', 'shmat', 'shmctl', 'socket', 'socketpair',
                   'setsockopt', 'getsockopt', 'shutdown')
IPC_PY = PRELUDE + '''big = buf(b'\\0' * 256)
q = sc(68, 0, 0o1000 | 0o600)                          # msgget IPC_PRIVATE
sc(68, 1234, 0)
sc(68, -1, -1)
sc(68, 5, 0o2000 | 0o1000 | 0x10000 | 0o644)
msg = buf(L(1) + b'hello')
sc(69, q, a(msg), 5, 0o4000)                           # msgsnd IPC_NOWAIT
sc(69, q, a(msg), 5, 0)
sc(69, -1, 0, 0, -1)
sc(70, q, a(big), 64, 0, 0o4000 | 0o10000)             # msgrcv
sc(70, q, a(big), 64, -3, 0o20000 | 0o4000 | 0x40000000)
sc(70, -1, 0, 0, 0, 0)
sc(71, q, 2, a(big))                                   # msgctl IPC_STAT
sc(71, q, 0x100 | 2, a(big))
sc(71, -1, 99, 0)
sc(71, -1, -1, 0)
sc(71, q, 0, 0)
s = sc(64, 0, 1, 0o1000 | 0o600)                       # semget
sc(64, 77, 0, 0)
sc(64, 0, -1, 0o2000)
m = sc(29, 0, 4096, 0o1000 | 0o600)                    # shmget
sc(29, 0, 4096, 0o600)
sc(29, 99, 1 << 40, 0o4000 | 0o10000 | 0o2000 | 0o1000)
sc(29, -1, 0, 0)
sc(29, 7, 10, 0x80000000)
sc(30, m, 0, 0o10000)                                  # shmat SHM_RDONLY
sc(30, m, 0, 0o20000 | 0o100000 | 0x1000000)
sc(30, -1, 0, 0)
sc(30, -1, 1, -1)
sc(31, m, 2, a(big))                                   # shmctl IPC_STAT
sc(31, m, 11, 0)
sc(31, -1, 13, 0)
sc(31, -1, 99, 0)
sc(31, -1, -1, 0)
sc(31, m, 0x100, 0)
sc(41, 2, 1, 0)                                        # socket
u = sc(41, 2, 2 | 0o2000000 | 0o4000, 17)
sc(41, 10, 3, 255)
t = sc(41, 10, 1, 6)
sc(41, 1, 1, 0)
sc(41, 2, 3, 200)
sc(41, 2, 3, -1)
sc(41, 99, 99, 7)
sv = buf(b'\\0' * 8)
sc(53, 1, 1, 0, a(sv))                                 # socketpair
sc(53, 2, 1, 6, a(sv))
sc(53, 1, 5, 0, 0)
one = buf(struct.pack('i', 1))
sc(54, t, 1, 2, a(one), 4)                             # setsockopt
sc(54, t, 6, 1, a(one), 4)
sc(54, t, 1, 20, a(big), 16)
sc(54, t, 1, 29, a(one), 4)
sc(54, t, 0, 66, 0, 4)
sc(54, t, 999, 999, 0, -1)
sc(54, t, -1, -1, 0, 0)
sc(54, t, 283, 68, 0, 4)
n = buf(struct.pack('i', 4))
sc(55, t, 1, 3, a(one), a(n))                          # getsockopt
sc(55, t, 1, 4, 0, 0)
sc(55, t, 41, 26, a(one), a(n))
sc(55, -1, 270, 100, 1, 2)
sc(48, t, 0)                                           # shutdown
sc(48, t, 1)
sc(48, t, 2)
sc(48, t, 3)
sc(48, -1, -1)
'''
IPC_UPSTREAM = '''msgget(IPC_PRIVATE, IPC_CREAT|0600)
msgget(1234, )
msgget(-1, IPC_CREAT|IPC_EXCL|0xfffffffffffff800|0777)
msgget(5, IPC_CREAT|IPC_EXCL|0x10000|0644)
msgsnd(0, ADDR, 5, IPC_NOWAIT)
msgsnd(0, ADDR, 5, 0x0)
msgsnd(-1, 0x0, 0, MSG_NOERROR|MSG_EXCEPT|IPC_NOWAIT|0xffffc7ff)
msgrcv(0, ADDR, 64, 0, MSG_NOERROR|IPC_NOWAIT)
msgrcv(0, ADDR, 64, -3, MSG_EXCEPT|IPC_NOWAIT|0x40000000)
msgrcv(-1, 0x0, 0, 0, 0x0)
msgctl(0, IPC_STAT, ADDR)
msgctl(0, IPC_64|IPC_STAT, ADDR)
msgctl(-1, 0x63, 0x0)
msgctl(-1, IPC_64|0xfffffeff, 0x0)
msgctl(0, IPC_RMID, 0x0)
semget(IPC_PRIVATE, 1, IPC_CREAT|0600)
semget(77, 0, )
semget(IPC_PRIVATE, -1, IPC_EXCL)
shmget(0, 4096, IPC_CREAT|0600)
shmget(0, 4096, 0x0|0600)
shmget(99, 1099511627776, IPC_CREAT|IPC_EXCL|SHM_HUGETLB|SHM_NORESERVE)
shmget(-1, 0, 0x0)
shmget(7, 10, 0x80000000)
shmat(0, 0x0, SHM_RDONLY)
shmat(0, 0x0, SHM_RND|SHM_EXEC|0x1000000)
shmat(-1, 0x0, 0x0)
shmat(-1, 0x1, SHM_RDONLY|SHM_RND|SHM_REMAP|SHM_EXEC|0xffffffffffff0fff)
shmctl(0, IPC_STAT, ADDR)
shmctl(0, GETPID, 0x0)
shmctl(-1, GETALL, 0x0)
shmctl(-1, 0x63, 0x0)
shmctl(-1, IPC_64|0xfffffeff, 0x0)
shmctl(0, IPC_64|IPC_RMID, 0x0)
socket(PF_INET, SOCK_STREAM, IPPROTO_IP)
socket(PF_INET, SOCK_DGRAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_UDP)
socket(PF_INET6, SOCK_RAW, IPPROTO_RAW)
socket(PF_INET6, SOCK_STREAM, IPPROTO_TCP)
socket(PF_LOCAL, SOCK_STREAM, 0)
socket(PF_INET, SOCK_RAW, 200)
socket(PF_INET, SOCK_RAW, -1)
socket(0x63, SOCK_RAW|0x60, 7)
socketpair(PF_LOCAL, SOCK_STREAM, 0, ADDR)
socketpair(PF_INET, SOCK_STREAM, IPPROTO_TCP, ADDR)
socketpair(PF_LOCAL, SOCK_SEQPACKET, 0, 0x0)
setsockopt(6, SOL_SOCKET, SO_REUSEADDR, ADDR, 4)
setsockopt(6, SOL_TCP, SO_DEBUG, ADDR, 4)
setsockopt(6, SOL_SOCKET, 0x14, ADDR, 16)
setsockopt(6, SOL_SOCKET, SO_TIMESTAMP_OLD, ADDR, 4)
setsockopt(6, SOL_IP, SO_RCVTIMEO_NEW, 0x0, 4)
setsockopt(6, 0x3e7, 0x3e7, 0x0, 4294967295)
setsockopt(6, 0xffffffffffffffff, 0xffffffffffffffff, 0x0, 0)
setsockopt(6, 0x11b, 0x44, 0x0, 4)
getsockopt(6, SOL_SOCKET, SO_TYPE, ADDR, ADDR)
getsockopt(6, SOL_SOCKET, SO_ERROR, 0x0, 0x0)
getsockopt(6, SOL_IPV6, SO_ATTACH_FILTER, ADDR, ADDR)
getsockopt(-1, SOL_NETLINK, 0x64, 0x1, 0x2)
shutdown(6, SHUT_RD)
shutdown(6, SHUT_WR)
shutdown(6, SHUT_RDWR)
shutdown(6, 0x3)
shutdown(-1, 0xffffffff)
'''


CLK_SCRIPT = watch('clock_gettime', 'clock_gettime', 'clock_getres', 'clock_settime',
                   'clock_adjtime', 'timer_create', 'timerfd_create', 'waitid',
                   'getrusage', 'ppoll', 'pselect6')
CLK_PY = PRELUDE + '''ts = buf(b'\\0' * 16)
sc(228, 0, a(ts))                                      # clock_gettime
sc(228, 1, a(ts))
sc(228, 7, a(ts))
sc(228, 11, a(ts))
sc(228, 12, a(ts))
sc(228, -2, a(ts))
sc(228, 1, 0)
sc(229, 4, a(ts))                                      # clock_getres
sc(229, 99, 0)
sc(227, 0, a(buf(L(5, 2000000000))))                   # clock_settime: EINVAL
sc(227, 1, a(buf(struct.pack('ii', 100, 5) + L(0))))
sc(227, 0, 0)
sc(227, 0, 1)
tx = buf(b'\\0\\0\\0\\0' + bytes((i * 7 + 1) % 256 for i in range(204)))
sc(305, 0, a(tx))                                      # clock_adjtime modes 0
sc(305, 1, 1)
sc(305, 99, 0)
tid = ctypes.c_int(0)
sc(222, 1, 0, ctypes.addressof(tid))                   # timer_create
sc(222, 9, 0, ctypes.addressof(tid))
sc(222, 55, 0, 0)
sc(283, 1, 0)                                          # timerfd_create
sc(283, 0, 0o4000 | 0o2000000)
sc(283, 7, 1)
sc(283, 8, 0x10)
info = buf(b'\\0' * 128)
sc(247, 0, 0, a(info), 4 | 1, 0)                       # waitid
sc(247, 1, 1, 0, 4, 0)
sc(247, 2, 0, 0, 0x1000000 | 4, 0)
sc(247, 3, -1, 0, 0, 0)
sc(247, 7, 0, 0, 0x80000000, 1)
ru = buf(b'\\0' * 144)
sc(98, 0, a(ru))                                       # getrusage
sc(98, -1, a(ru))
sc(98, -2, 0)
sc(98, 1, a(ru))
sc(98, 5, 0)
mask = buf(b'\\0' * 8)
one_s, zero, ns = buf(L(1, 0)), buf(L(0, 0)), buf(L(0, 5000))   # kept alive
sc(271, 0, 0, a(one_s), 0, 8)                          # ppoll, 1 s
sc(271, 0, 0, 0, a(mask), 7)
sc(271, 0, 0, 1, 0, 8)
sc(271, 0, 0, a(zero), a(mask), 8)
fds, sm = buf(b'\\1' + b'\\0' * 7), buf(L(0, 8))
sc(270, 0, 0, 0, 0, a(ns), 0)                          # pselect6
sc(270, 1, a(fds), 0, 0, a(zero), a(sm))
sc(270, 0, 0, 0, 0, 1, 0)
sc(270, -1, 0, 0, 0, 0, 0)
'''
CLK_UPSTREAM = '''clock_gettime(CLOCK_REALTIME, ADDR)
clock_gettime(CLOCK_MONOTONIC, ADDR)
clock_gettime(CLOCK_BOOTTIME, ADDR)
clock_gettime(CLOCK_TAI, ADDR)
clock_gettime(0xc, ADDR)
clock_gettime(0xfffffffe, ADDR)
clock_gettime(CLOCK_MONOTONIC, 0x0)
clock_getres(CLOCK_MONOTONIC_RAW, ADDR)
clock_getres(0x63, 0x0)
clock_settime(CLOCK_REALTIME, [5.000000000])
clock_settime(CLOCK_MONOTONIC, [100.000000005])
clock_settime(CLOCK_REALTIME, NULL)
clock_settime(CLOCK_REALTIME, 0x1)
clock_adjtime(CLOCK_REALTIME, {0x0, constant=18446744072142689421, esterror=1784896597, freq=841688093, maxerror=1313292345, offset=370083841, precision=18446744072614293673, status=-2038466447, tick=774316057, tolerance=18446744073085897925})
clock_adjtime(CLOCK_MONOTONIC, 0x1)
clock_adjtime(0x63, NULL)
timer_create(CLOCK_MONOTONIC, 0x0, ADDR)
timer_create(CLOCK_BOOTTIME_ALARM, 0x0, ADDR)
timer_create(0x37, 0x0, 0x0)
timerfd_create(CLOCK_MONOTONIC, 0x0)
timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC|TFD_NONBLOCK)
timerfd_create(CLOCK_BOOTTIME, TFD_TIMER_ABSTIME)
timerfd_create(CLOCK_REALTIME_ALARM, 0x10)
waitid(P_ALL, 0, ADDR, WNOHANG|WEXITED, 0x0)
waitid(P_PID, 1, 0x0, WEXITED, 0x0)
waitid(P_PGID, 0, 0x0, WEXITED|WNOWAIT, 0x0)
waitid(0x3, -1, 0x0, 0x0, 0x0)
waitid(0x7, 0, 0x0, __WCLONE, 0x1)
getrusage(RUSAGE_SELF, ADDR)
getrusage(RUSAGE_CHILDREN, ADDR)
getrusage(RUSAGE_BOTH, 0x0)
getrusage(RUSAGE_THREAD, ADDR)
getrusage(0x5, 0x0)
ppoll(0x0, 0, [1.000000000], 0x0, 8)
ppoll(0x0, 0, NULL, ADDR, 7)
ppoll(0x0, 0, 0x1, 0x0, 8)
ppoll(0x0, 0, [0.000000000], ADDR, 8)
pselect6(0, 0x0, 0x0, 0x0, [0.000000000], 0x0)
pselect6(1, ADDR, 0x0, 0x0, [0.000000000], ADDR)
pselect6(0, 0x0, 0x0, 0x0, 0x1, 0x0)
pselect6(-1, 0x0, 0x0, 0x0, NULL, 0x0)
'''


@pytest.fixture(scope='module')
def guest_runs(krel, tools, tmp_path_factory):
    """The scripts built and run in one guest boot: {name: Result}."""
    return run_watched(krel, tmp_path_factory.mktemp('scipc'), {'ipc': (IPC_SCRIPT, IPC_PY), 'clk': (CLK_SCRIPT, CLK_PY)}, 120)


@pytest.mark.parametrize('name,expected', [('ipc', IPC_UPSTREAM), ('clk', CLK_UPSTREAM)])
def test_argstr_as_upstream(guest_runs, name, expected):
    res = guest_runs[name]
    out = re.sub(r'0x7fff[0-9a-f]{8}', 'ADDR', res.stdout)
    assert (out, res.rc) == (expected, 0)
