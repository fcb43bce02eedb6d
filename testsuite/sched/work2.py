#!/usr/bin/python3
# The second workload of the sched scripts (staprun -c, 2 CPUs): moves
# between CPUs, a waitpid on one child, strace (ptrace) of another,
# rt_sigpending, tgkill and tkill of ignored signals, and a POSIX timer
# whose SIGALRM is queued with send_sigqueue.
import ctypes
import os
import signal
import subprocess
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
SYS_TKILL = 200

pid = os.fork()
if pid == 0:
    time.sleep(0.3)
    os._exit(3)
os.sched_setaffinity(pid, {1})
os.sched_setaffinity(pid, {0})
os.sched_setaffinity(0, {1})
os.sched_setaffinity(0, {0})
os.waitpid(pid, 0)
subprocess.run(['/usr/bin/strace', '-o', '/dev/null', '/bin/true'], check=True)
signal.sigpending()
signal.pthread_kill(threading.get_ident(), signal.SIGWINCH)
libc.syscall(SYS_TKILL, threading.get_native_id(), signal.SIGWINCH)
got = []
signal.signal(signal.SIGALRM, lambda s, f: got.append(s))
timer = ctypes.c_void_p()
assert libc.timer_create(0, None, ctypes.byref(timer)) == 0
spec = (ctypes.c_long * 4)(0, 0, 0, 20000000)   # it_interval 0, it_value 20 ms
assert libc.timer_settime(timer, 0, spec, None) == 0
while not got:
    time.sleep(0.01)
print('alarm', got[0] == signal.SIGALRM)
