# argstr of the calls fixed against SystemTap 4.8's nd_syscall tapsets:
# variables read from the wrong argument (readv, writev, mq_timedreceive),
# signedness and formats (dup, fchmod, fstat, the *chown and set*id calls,
# getdents, epoll_pwait, ioperm, personality, tee, copy_file_range), names
# (flock, getrlimit, getitimer) and the whole argstr of prctl and ptrace
# (decoders in tapsets/linux/sc_flags_misc.stp), against what 4.8 printed for
# the same script and program in the test guest (recorded once below as
# *_UPSTREAM, 0x7fff........ addresses as ADDR). Also the flag decoders
# called with no syscall probe at all: built on the host for one decoder of
# each tapsets/linux/sc_flags_*.stp file, and run in the guest. Calls that
# could change the guest fail first: set*id with -1, ioperm past the port
# range, prctl options with a bad argument (EINVAL/EPERM/EFAULT), ptrace on a
# pid that does not exist (ESRCH).
import re

import pytest

from conftest import run_stap
from test_listing_syscalls import PRELUDE, run_watched, watch

MISC_SCRIPT = watch('dup', 'dup', 'readv', 'writev', 'mq_timedreceive', 'fanotify_mark',
                    'fchmod', 'fstat', 'flock', 'getrlimit', 'getitimer', 'setuid', 'setgid',
                    'setfsuid', 'setfsgid', 'ioperm', 'personality', 'chown', 'lchown',
                    'fchown', 'fchownat', 'setreuid', 'setregid', 'setresuid', 'setresgid',
                    'getdents', 'epoll_pwait', 'tee', 'copy_file_range')
MISC_PY = PRELUDE + r'''nul = os.open('/dev/null', os.O_RDWR)
data = buf(b'abcd')
iov = buf(L(a(data), 4))
path = buf(b'/nonexistent\0')
out = buf(b'\0' * 64)
sc(32, -1)                                            # dup
sc(32, nul)
sc(32, 0x100000005)
sc(19, nul, a(iov), 1)                                # readv
sc(19, -1, 0, -1)
sc(19, 0x100000003, 1, 0x100000002)
sc(20, nul, a(iov), 1)                                # writev
sc(20, -5, 1, 0)
sc(243, -1, a(out), 64, a(out), 0)                    # mq_timedreceive
sc(243, 0x100000007, 1, -1, 0, 1)
sc(301, -1, 1, 0x20, 5, a(path))                      # fanotify_mark
sc(91, -1, 0o644)                                     # fchmod
sc(91, 0x100000009, 0o4755)
sc(5, -1, a(out))                                     # fstat
sc(5, 0x100000002, 0)
for op in (1, 2, 2 | 4, 8, 0, 0x20, 0x40 | 0x80, 0x100, -1):
    sc(73, -1, op)                                    # flock
for r in (0, 7, 15, 16, 99, -1):
    sc(97, r, a(out))                                 # getrlimit
sc(97, 0x100000003, 0)
for w in (0, 1, 2, 3, -1):
    sc(36, w, a(out))                                 # getitimer
sc(105, -1)                                           # setuid
sc(106, -1)                                           # setgid
sc(122, -1)                                           # setfsuid
sc(122, 0)
sc(123, -1)                                           # setfsgid
sc(123, 0x100000000)
sc(173, 0x10000, 8, 1)                                # ioperm: EINVAL
sc(173, 0, 0, 0)
sc(173, -1, -1, -1)
sc(135, 0xffffffff)                                   # personality: query
sc(135, -1)
sc(92, a(path), -1, -1)                               # chown
sc(92, a(path), 0, 0x80000000)
sc(94, a(path), 1000, -1)                             # lchown
sc(93, -1, -1, 5)                                     # fchown
sc(260, -100, a(path), -1, 0xfffffffe, 0x100)         # fchownat
sc(113, -1, -1)                                       # setreuid
sc(114, -1, -1)                                       # setregid
sc(117, -1, -1, -1)                                   # setresuid
sc(119, -1, -1, -1)                                   # setresgid
sc(78, -1, a(out), 64)                                # getdents
sc(78, -1, 0, -1)
sc(217, -1, a(out), 0x80000000)                       # getdents64
sc(281, -1, a(out), 1, 0, 0, 8)                       # epoll_pwait
sc(281, -1, 0, -1, -1, a(out), -1)
sc(276, -1, -1, 100, 0xf)                             # tee
sc(276, -1, -1, -1, 0)
sc(326, -1, 0, -1, 0, 10, 1)                          # copy_file_range
sc(326, -1, a(out), -1, 1, -1, 0xffffffff)
'''
MISC_UPSTREAM = '''dup(-1)
dup(3)
dup(5)
readv(3, ADDR, 1)
readv(-1, 0x0, -1)
readv(3, 0x1, 2)
writev(3, ADDR, 1)
writev(-5, 0x1, 0)
mq_timedreceive(-1, ADDR, 64, ADDR, 0x0)
mq_timedreceive(7, 0x1, 18446744073709551615, 0x0, 0x1)
fanotify_mark(-1, FAN_MARK_ADD, FAN_OPEN, 5, "/nonexistent")
fchmod(-1, 0644)
fchmod(9, 04755)
fstat(-1, ADDR)
fstat(2, 0x0)
flock(-1, LOCK_SH)
flock(-1, LOCK_EX)
flock(-1, LOCK_EX|LOCK_NB)
flock(-1, LOCK_UN)
flock(-1, 0x0)
flock(-1, LOCK_MAND)
flock(-1, LOCK_READ|LOCK_WRITE)
flock(-1, 0x100)
flock(-1, LOCK_SH|LOCK_EX|LOCK_NB|LOCK_UN|LOCK_MAND|LOCK_READ|LOCK_WRITE|0xffffff10)
getrlimit(RLIMIT_CPU, ADDR)
getrlimit(RLIMIT_NOFILE, ADDR)
getrlimit(RLIMIT_RTTIME, ADDR)
getrlimit(RLIM_NLIMITS, ADDR)
getrlimit(0x63, ADDR)
getrlimit(RLIM_INFINITY, ADDR)
getrlimit(RLIMIT_STACK, 0x0)
getitimer(ITIMER_REAL, ADDR)
getitimer(ITIMER_VIRTUAL, ADDR)
getitimer(ITIMER_PROF, ADDR)
getitimer(0x3, ADDR)
getitimer(0xffffffff, ADDR)
setuid(-1)
setgid(-1)
setfsuid(-1)
setfsuid(0)
setfsgid(-1)
setfsgid(0)
ioperm(0x10000, 0x8, 0x1)
ioperm(0x0, 0x0, 0x0)
ioperm(0xffffffffffffffff, 0xffffffffffffffff, 0xffffffff)
personality(0xffffffff)
personality(0xffffffff)
chown("/nonexistent", -1, -1)
chown("/nonexistent", 0, -2147483648)
lchown("/nonexistent", 1000, -1)
fchown(-1, -1, 5)
fchownat(AT_FDCWD, "/nonexistent", -1, -2, AT_SYMLINK_NOFOLLOW)
setreuid(-1, -1)
setregid(-1, -1)
setresuid(-1, -1, -1)
setresgid(-1, -1, -1)
getdents(-1, ADDR, 64)
getdents(-1, 0x0, 4294967295)
getdents(-1, ADDR, 2147483648)
epoll_pwait(-1, ADDR, 1, 0, 0x0, 8)
epoll_pwait(-1, 0x0, -1, -1, ADDR, -1)
tee(-1, -1, 100, 0xf)
tee(-1, -1, 18446744073709551615, 0x0)
copy_file_range(-1, 0x0, -1, 0x0, 10, 0x1)
copy_file_range(-1, ADDR, -1, 0x1, 18446744073709551615, 0xffffffff)
'''

PRCTL_SCRIPT = watch('prctl', 'prctl')
PRCTL_PY = PRELUDE + r'''out = buf(b'\0' * 64)
P = a(out)
for args in [(3,), (4, 5), (4, 0x100000001), (7,), (8, 2), (2, P), (1, 0), (16, P),
             (5, P), (6, 1), (6, 2), (6, 7), (9, P), (10, 1), (10, 2), (10, 3),
             (11, P), (12, 0x80), (12, 0x10000), (12, 3), (12, 4), (13,), (14, 0), (14, 1),
             (14, 2), (19, P), (20, 1), (20, 2), (20, 3), (20, 0), (21,), (22, 7, 0),
             (22, 2, 0), (22, 0, 5), (23, 0), (23, 21), (23, 37), (23, 38), (23, -1),
             (24, 99), (25, P), (26, 1), (26, 5), (27,), (28, 0x101), (28, 0x100),
             (28, 0x130), (28, 0x3f | 0x100), (28, 0), (29, 0), (30,), (31,), (32,),
             (33, 1, 2, 1), (33, 1, 0, 1), (33, 1, 5, 1), (33, 0, 7, 1), (33, 5, 7, 1),
             (34,), (35, 1, 0, 1), (35, 15, 8, 1), (35, 99, 0, 1),
             (0x59616d61, -1, 1), (0x59616d61, 0, 1), (0x59616d61, 99999, 1),
             (0x59616d61, 0xffffffff, 1), (36, 0), (37, P), (38, 0), (38, 2), (39,),
             (40, P), (41, 0, 1), (42,), (43,), (44,), (45, 1, 2, 3, 4),
             (0x53564d41, 1, 2, 3, 4), (0, 1, 2, 3, 4), (-1, -1, -2, -3, -4), (99, 0, 0, 0, 0)]:
    sc(157, *args)
'''
PRCTL_UPSTREAM = '''prctl(PR_GET_DUMPABLE)
prctl(PR_SET_DUMPABLE, 5)
prctl(PR_SET_DUMPABLE, 4294967297)
prctl(PR_GET_KEEPCAPS)
prctl(PR_SET_KEEPCAPS, 2)
prctl(PR_GET_PDEATHSIG, ADDR)
prctl(PR_SET_PDEATHSIG, 0x0)
prctl(PR_GET_NAME, ADDR)
prctl(PR_GET_UNALIGN, ADDR)
prctl(PR_SET_UNALIGN, PR_UNALIGN_NOPRINT)
prctl(PR_SET_UNALIGN, PR_UNALIGN_SIGBUS)
prctl(PR_SET_UNALIGN, 0x7)
prctl(PR_GET_FPEMU, ADDR)
prctl(PR_SET_FPEMU, PR_FPEMU_NOPRINT)
prctl(PR_SET_FPEMU, PR_FPEMU_SIGFPE)
prctl(PR_SET_FPEMU, 0x3)
prctl(PR_GET_FPEXC, ADDR)
prctl(PR_SET_FPEXC, PR_FP_EXC_SW_ENABLE)
prctl(PR_SET_FPEXC, PR_FP_EXC_DIV)
prctl(PR_SET_FPEXC, PR_FP_EXC_PRECISE)
prctl(PR_SET_FPEXC, 0x4)
prctl(PR_GET_TIMING)
prctl(PR_SET_TIMING, PR_TIMING_STATISTICAL)
prctl(PR_SET_TIMING, PR_TIMING_TIMESTAMP)
prctl(PR_SET_TIMING, 0x2)
prctl(PR_GET_ENDIAN, ADDR)
prctl(PR_SET_ENDIAN, PR_ENDIAN_LITTLE)
prctl(PR_SET_ENDIAN, PR_ENDIAN_PPC_LITTLE)
prctl(PR_SET_ENDIAN, 0x3)
prctl(PR_SET_ENDIAN, PR_ENDIAN_BIG)
prctl(PR_GET_SECCOMP)
prctl(PR_SET_SECCOMP, 0x7, 0x0)
prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, 0x0)
prctl(PR_SET_SECCOMP, SECCOMP_MODE_DISABLED, 0x5)
prctl(PR_CAPBSET_READ, CAP_CHOWN)
prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN)
prctl(PR_CAPBSET_READ, CAP_AUDIT_READ)
prctl(PR_CAPBSET_READ, 0x26)
prctl(PR_CAPBSET_READ, 0xffffffffffffffff)
prctl(PR_CAPBSET_DROP, 0x63)
prctl(PR_GET_TSC, ADDR)
prctl(PR_SET_TSC, PR_TSC_ENABLE)
prctl(PR_SET_TSC, 0x5)
prctl(PR_GET_SECUREBITS)
prctl(PR_SET_SECUREBITS, SECBIT_NOROOT|0x100)
prctl(PR_SET_SECUREBITS, 0x100)
prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS|SECBIT_KEEP_CAPS_LOCKED|0x100)
prctl(PR_SET_SECUREBITS, SECBIT_NOROOT|SECBIT_NOROOT_LOCKED|SECBIT_NO_SETUID_FIXUP|SECBIT_NO_SETUID_FIXUP_LOCKED|SECBIT_KEEP_CAPS|SECBIT_KEEP_CAPS_LOCKED|0x100)
prctl(PR_SET_SECUREBITS, 0x0)
prctl(PR_SET_TIMERSLACK, 0)
prctl(PR_GET_TIMERSLACK)
prctl(PR_TASK_PERF_EVENTS_DISABLE)
prctl(PR_TASK_PERF_EVENTS_ENABLE)
prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_DEFAULT)
prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_LATE)
prctl(PR_MCE_KILL, PR_MCE_KILL_SET, 0x5)
prctl(PR_MCE_KILL, PR_MCE_KILL_CLEAR)
prctl(PR_MCE_KILL, 0x5, 0x7)
prctl(PR_MCE_KILL_GET)
prctl(PR_SET_MM, PR_SET_MM_START_CODE, 0x0)
prctl(PR_SET_MM, PR_SET_MM_MAP_SIZE, 0x8)
prctl(PR_SET_MM, 0x63, 0x0)
prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY)
prctl(PR_SET_PTRACER, 0)
prctl(PR_SET_PTRACER, 99999)
prctl(PR_SET_PTRACER, 4294967295)
prctl(PR_SET_CHILD_SUBREAPER, 0)
prctl(PR_GET_CHILD_SUBREAPER, ADDR)
prctl(PR_SET_NO_NEW_PRIVS, 0)
prctl(PR_SET_NO_NEW_PRIVS, 2)
prctl(PR_GET_NO_NEW_PRIVS)
prctl(PR_GET_TID_ADDRESS, ADDR)
prctl(PR_SET_THP_DISABLE, 0x0)
prctl(PR_GET_THP_DISABLE)
prctl(PR_MPX_ENABLE_MANAGEMENT)
prctl(PR_MPX_DISABLE_MANAGEMENT)
prctl(0x2d, 0x1, 0x2, 0x3, 0x4)
prctl(0x53564d41, 0x1, 0x2, 0x3, 0x4)
prctl(0x0, 0x1, 0x2, 0x3, 0x4)
prctl(0xffffffff, 0xffffffffffffffff, 0xfffffffffffffffe, 0xfffffffffffffffd, 0xfffffffffffffffc)
prctl(0x63, 0x0, 0x0, 0x0, 0x0)
'''

# and the return side's variables (4.8's nd_syscall sets both to 0)
PTRACE_RETURN = '''probe nd_syscall.ptrace.return {
	if (execname() == "python3")
		printf("%s = %s %d %d\\n", name, retstr, geteventmsg_data, arch_prctl_addr)
}
'''
PTRACE_SCRIPT = watch('ptrace', 'ptrace') + PTRACE_RETURN
PTRACE_PY = PRELUDE + r'''out = buf(b'\0' * 64)
P = a(out)
iov = buf(L(P, 64))
iov0 = buf(L(0, 0))
N = 99999
for args in [(1, N, 0x1000, P), (2, N, 0, 0), (3, N, 8, P), (4, N, 0x1000, 5), (5, N, 0, 0),
             (6, N, 8, -1), (7, N, 0, 0), (7, N, 1, 9), (9, N, 0, 15), (17, N, 0, 0),
             (24, N, 0, 19), (24, N, 0, 99), (8, N, 0, 0), (16, N, 0, 0), (16, N, 5, -1),
             (12, N, 0, P), (13, N, 1, 0), (14, N, 0, P), (15, N, 0, 0), (18, N, 0, P),
             (19, N, 0, 0), (31, N, 0, 9), (32, N, 0, 0), (33, N, 0, 2),
             (21, N, 0, 0x41), (21, N, 0, 0), (25, N, -1, P), (26, N, 12, 0),
             (25, N, 0x100000005, 0), (30, N, P, 0x1003), (30, N, 0, 0x1001), (30, N, 0, 5),
             (0x4200, N, 0, 0x100001 | 0x40000000), (0x4200, N, 0, 0), (0x4200, N, 0, 0x7f),
             (0x4201, N, 0, P), (0x4202, N, 0, P), (0x4203, N, 1, 0), (0x4204, N, 1, a(iov)),
             (0x4205, N, 0x202, a(iov0)), (0x4204, N, 0x99, 0), (0x4204, N, 0x53494749, 1),
             (0x4206, N, 0, 0x10), (0x4207, N, 0, 0), (0x4208, N, 0, 0),
             (0x4209, N, P, P), (0x420a, N, 8, P), (0x420b, N, 8, 0),
             (22, N, 1, 2), (0x420c, N, 0, 0), (-1, -1, -1, -1), (10, 0, 0, 0)]:
    sc(101, *args)
'''
PTRACE_UPSTREAM = '''ptrace(PTRACE_PEEKTEXT, 99999, 0x1000, [ADDR])
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_PEEKDATA, 99999, 0x0, [0x0])
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_PEEKUSR, 99999, 0x8, [ADDR])
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_POKETEXT, 99999, 0x1000, 0x5)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_POKEDATA, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_POKEUSR, 99999, 0x8, 0xffffffffffffffff)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_CONT, 99999, 0x0, SIG_0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_CONT, 99999, 0x1, SIGKILL)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SINGLESTEP, 99999, 0x0, SIGTERM)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_DETACH, 99999, 0x0, SIG_0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SYSCALL, 99999, 0x0, SIGSTOP)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SYSCALL, 99999, 0x0, 0x63)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_KILL, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_ATTACH, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_ATTACH, 99999, 0x5, 0xffffffffffffffff)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GETREGS, 99999, 0x0, ADDR)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SETREGS, 99999, 0x1, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GETFPREGS, 99999, 0x0, ADDR)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SETFPREGS, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GETFPXREGS, 99999, 0x0, ADDR)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SETFPXREGS, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SYSEMU, 99999, 0x0, SIGKILL)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SYSEMU_SINGLESTEP, 99999, 0x0, SIG_0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SINGLEBLOCK, 99999, 0x0, SIGINT)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_OLDSETOPTIONS, 99999, 0x0, PTRACE_O_TRACEEXIT|PTRACE_O_TRACESYSGOOD)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_OLDSETOPTIONS, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GET_THREAD_AREA, 99999, -1, ADDR)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SET_THREAD_AREA, 99999, 12, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GET_THREAD_AREA, 99999, 5, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_ARCH_PRCTL, 99999, ADDR, ARCH_GET_FS)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_ARCH_PRCTL, 99999, 0x0, ARCH_SET_GS)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_ARCH_PRCTL, 99999, 0x0, 0x5)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SETOPTIONS, 99999, 0x0, PTRACE_O_EXITKILL|PTRACE_O_TRACESYSGOOD|0x40000000)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SETOPTIONS, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SETOPTIONS, 99999, 0x0, PTRACE_O_TRACECLONE|PTRACE_O_TRACEEXEC|PTRACE_O_TRACEEXIT|PTRACE_O_TRACEFORK|PTRACE_O_TRACESYSGOOD|PTRACE_O_TRACEVFORK|PTRACE_O_TRACEVFORKDONE)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GETEVENTMSG, 99999, 0x0, ADDR)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GETSIGINFO, 99999, 0x0, ADDR)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SETSIGINFO, 99999, 0x1, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GETREGSET, 99999, NT_PRSTATUS, [{ADDR, 64}])
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SETREGSET, 99999, NT_X86_XSTATE, [{0x0, 0}])
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GETREGSET, 99999, 0x99, NULL)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GETREGSET, 99999, NT_SIGINFO, 0x1)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SEIZE, 99999, 0x0, 0x10)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_INTERRUPT, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_LISTEN, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_PEEKSIGINFO, 99999, ADDR, ADDR)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_GETSIGMASK, 99999, 0x8, ADDR)
ptrace = -3 (ESRCH) 0 0
ptrace(PTRACE_SETSIGMASK, 99999, 0x8, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(0x16, 99999, 0x1, 0x2)
ptrace = -3 (ESRCH) 0 0
ptrace(0x420c, 99999, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
ptrace(0xffffffffffffffff, -1, 0xffffffffffffffff, 0xffffffffffffffff)
ptrace = -3 (ESRCH) 0 0
ptrace(0xa, 0, 0x0, 0x0)
ptrace = -3 (ESRCH) 0 0
'''

# one decoder of each sc_flags_*.stp (and syscall_support.stp), no syscall probe
DIRECT_SCRIPT = r'''probe begin {
	println(_sched_policy_str(1), " ", _sched_policy_str(0x40000002))
	println(_stp_msgflg_str(0x1000 | 4), " ", _mremap_flags(3))
	println(_fanotify_init_flags_str(5), " ", _kexec_flags_str(0x3e0001))
	println(_flock_cmd_str(6), " ", _flock_cmd_str(0))
	println(_prctl_argstr(4, 1, 0, 0, 0))
	println(_ptrace_argstr(0x4200, 1, 0, 0x41))
	println(_rlimit_resource_str(7), " ", _itimer_which_str(2))
	println(_futex_wake_op_str(0x14000001), " ", _futex_wake_op_str(0xd8fff123))
	exit()
}
'''
DIRECT_UPSTREAM = '''SCHED_FIFO SCHED_RESET_ON_FORK|SCHED_RR
MSG_NOERROR|0x4 MREMAP_MAYMOVE|MREMAP_FIXED
FAN_CLASS_CONTENT|FAN_CLOEXEC KEXEC_ON_CRASH|KEXEC_ARCH_386|KEXEC_ARCH_X86_64
LOCK_EX|LOCK_NB 0x0
PR_SET_DUMPABLE, 1
PTRACE_SETOPTIONS, 1, 0x0, PTRACE_O_TRACEEXIT|PTRACE_O_TRACESYSGOOD
RLIMIT_NOFILE ITIMER_PROF
{FUTEX_OP_ADD, 0, FUTEX_OP_CMP_GT, 1} {FUTEX_OP_OPARG_SHIFT|0x5, -1, 0x8, 291}
'''

RUNS = {'misc': (MISC_SCRIPT, MISC_PY), 'prctl': (PRCTL_SCRIPT, PRCTL_PY),
        'ptrace': (PTRACE_SCRIPT, PTRACE_PY), 'direct': (DIRECT_SCRIPT, None)}
UPSTREAM = {'misc': MISC_UPSTREAM, 'prctl': PRCTL_UPSTREAM, 'ptrace': PTRACE_UPSTREAM,
            'direct': DIRECT_UPSTREAM}


def normalised(text):
    return re.sub(r'0x7fff[0-9a-f]{8}', 'ADDR', text)


def test_decoders_without_syscall_probe(krel, tools, tmp_path):
    """Pass 4 of a script calling only decoders: their table walkers
    (runtime/stp_scflags.h) come with each sc_flags_*.stp file."""
    calls = ['_sched_policy_str(1)', '_stp_msgflg_str(4)', '_kexec_flags_str(1)',
             '_flock_cmd_str(2)', '_prctl_argstr(3, 0, 0, 0, 0)', '_access_mode_str(4)']
    for i, call in enumerate(calls):
        r = run_stap(['-p4', '-r', krel, '-m', f'direct{i}', '-e',
                      f'probe begin {{ println({call}) }}'], cwd=tmp_path)
        assert (r.returncode, r.stderr) == (0, ''), call


@pytest.fixture(scope='module')
def guest_runs(krel, tools, tmp_path_factory):
    """The scripts built and run in one guest boot: {name: Result}."""
    return run_watched(krel, tmp_path_factory.mktemp('argstr_misc'), RUNS, 120)


@pytest.mark.parametrize('name', list(RUNS))
def test_argstr_as_upstream(guest_runs, name):
    res = guest_runs[name]
    assert (normalised(res.stdout), res.rc) == (UPSTREAM[name], 0)
