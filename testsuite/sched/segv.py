#!/usr/bin/python3
# A process whose SIGUSR1 handler runs on an alternate stack that is not
# mapped: the kernel cannot build the signal frame and forces a SIGSEGV
# on it (force_sigsegv(SIGUSR1)), which kills it. Prints how it ended.
import ctypes
import os
import signal

libc = ctypes.CDLL(None, use_errno=True)
SA_ONSTACK = 0x08000000
SA_RESTORER = 0x04000000


class StackT(ctypes.Structure):
    _fields_ = [('ss_sp', ctypes.c_void_p), ('ss_flags', ctypes.c_int),
                ('ss_size', ctypes.c_size_t)]


class SigactionT(ctypes.Structure):     # glibc's struct sigaction
    _fields_ = [('handler', ctypes.c_void_p), ('mask', ctypes.c_ulong * 16),
                ('flags', ctypes.c_int), ('restorer', ctypes.c_void_p)]


pid = os.fork()
if pid == 0:
    stack = StackT(0x10000, 0, 65536)       # nothing is mapped at 64 KiB
    assert libc.sigaltstack(ctypes.byref(stack), None) == 0
    act = SigactionT(0x1000, (ctypes.c_ulong * 16)(), SA_ONSTACK, None)
    assert libc.sigaction(signal.SIGUSR1, ctypes.byref(act), None) == 0
    os.kill(os.getpid(), signal.SIGUSR1)
    os._exit(0)
_, status = os.waitpid(pid, 0)
print('killed by', signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else status)
