# stap -L 'nd_syscall.*' and 'nd_syscall.*.return' (and syscall.*, which
# 4.8 lists alike: dw_syscall needs DWARF, so nd_syscall is what stays)
# against SystemTap 4.8's listing on this host, recorded once in
# listing/nd_syscall-L.txt and listing/nd_syscall-return-L.txt with
# `/usr/bin/stap -r BUILD -L ...`, BUILD a copy of the 6.1 headers' build
# directory with a System.map made from the guest's /proc/kallsyms (so
# 4.8's kprobe-based nd2_syscall points resolve, as in test_listing.py).
#
# KNOWN lists the probes whose line still differs (none now; the compat_*
# (ia32) calls are not provided). Every other line must be 4.8's byte for
# byte, and a KNOWN line that starts to match must leave the list. The
# socket and ipc calls list .return empty as 4.8: their socketcall and ipc
# multiplexer probes' @entry halves are among their probes.
import re
from pathlib import Path

import pytest

import guest
from conftest import STAPRUN, run_stap

HERE = Path(__file__).resolve().parent

KNOWN = set()
KNOWN_RETURN = set()


def by_name(text):
    return {line.split()[0].split('.')[1]: line for line in text.splitlines()}


@pytest.mark.parametrize('pattern,recorded,known', [
    ('nd_syscall.*', 'nd_syscall-L.txt', KNOWN),
    ('nd_syscall.*.return', 'nd_syscall-return-L.txt', KNOWN_RETURN),
])
def test_nd_syscall_listing(krel, pattern, recorded, known):
    r = run_stap(['-r', krel, '-L', pattern])
    assert r.returncode == 0, r.stderr
    ours = by_name(r.stdout)
    theirs = by_name((HERE / 'listing' / recorded).read_text())
    known = known | {n for n in theirs if n.startswith('compat_')}
    assert set(ours) - set(theirs) == set()
    same = {n for n in theirs if ours.get(n) == theirs[n]}
    assert same & known == set(), 'now as 4.8: drop from KNOWN'
    assert {n: ours.get(n) for n in set(theirs) - known - same} == {}
    assert len(same) == len(theirs) - len(known & set(theirs))


@pytest.mark.parametrize('suffix', ['', '.return'])
def test_syscall_listing_is_nd_syscall(krel, suffix):
    # 4.8 lists syscall.* exactly as nd_syscall.* without DWARF
    nd = run_stap(['-r', krel, '-L', f'nd_syscall.*{suffix}']).stdout
    sc = run_stap(['-r', krel, '-L', f'syscall.*{suffix}']).stdout
    assert sc.replace('\nsyscall.', '\nnd_syscall.').replace('syscall.', 'nd_syscall.', 1) == nd


# The head of the Python programs below: the raw syscall(2) with long
# arguments, a buffer's bytes and address, and packed longs.
PRELUDE = '''import ctypes, os, signal, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
_sc = libc.syscall
_sc.restype = ctypes.c_long
sc = lambda *v: _sc(*[ctypes.c_long(x) for x in v])
def buf(data):
    return ctypes.create_string_buffer(bytes(data), len(data))
a = lambda b: ctypes.cast(b, ctypes.c_void_p).value
L = lambda *v: struct.pack('%dq' % len(v), *v)
'''


def watch(first, *calls):
    """A script printing name(argstr) of each of the nd_syscall calls made
    by python3, from its first call of `first` on."""
    return ('global on\nprobe ' + ', '.join(f'nd_syscall.{c}' for c in calls) + ' {\n'
            f'\tif (execname() == "python3" && (on || name == "{first}")) {{\n'
            '\t\ton = 1\n\t\tprintf("%s(%s)\\n", name, argstr)\n\t}\n}\n')


# ---- in the guest: the calls fixed here, their variables as 4.8 printed them

XATTR_SCRIPT = '''probe nd_syscall.setxattr, nd_syscall.lsetxattr, nd_syscall.fsetxattr,
      nd_syscall.getxattr, nd_syscall.lgetxattr, nd_syscall.fgetxattr,
      nd_syscall.removexattr, nd_syscall.lremovexattr, nd_syscall.fremovexattr,
      nd_syscall.listxattr, nd_syscall.llistxattr, nd_syscall.flistxattr,
      nd_syscall.mkdir, nd_syscall.mkdirat, nd_syscall.unlink, nd_syscall.unlinkat,
      nd_syscall.renameat, nd_syscall.symlinkat, nd_syscall.truncate,
      nd_syscall.utimensat, nd_syscall.fadvise64 {
	if (execname() == "python3")
		printf("%s(%s) %s %s\\n", name, argstr, name_str_unquoted, path_unquoted)
}
'''
XATTR_PY = '''import os
open('x.txt', 'w').close()
fd = os.open('x.txt', os.O_RDONLY)
calls = [
    lambda: os.setxattr('x.txt', 'user.a', b'ab\\x00', os.XATTR_CREATE),
    lambda: os.setxattr('x.txt', 'user.b', b'\\x01\\x02q', 0, follow_symlinks=False),
    lambda: os.setxattr(fd, 'user.c', b'x' * 60, os.XATTR_REPLACE | 4),
    lambda: os.getxattr('x.txt', 'user.a'),
    lambda: os.getxattr('x.txt', 'user.a', follow_symlinks=False),
    lambda: os.getxattr(fd, 'user.a'),
    lambda: os.removexattr('x.txt', 'user.a'),
    lambda: os.removexattr('x.txt', 'user.a', follow_symlinks=False),
    lambda: os.removexattr(fd, 'user.a'),
    lambda: os.listxattr('x.txt'),
    lambda: os.listxattr('x.txt', follow_symlinks=False),
    lambda: os.listxattr(fd),
    lambda: os.mkdir('d1', 0o750),
    lambda: os.mkdir('d2', 0o700, dir_fd=fd),
    lambda: os.truncate('x.txt', 5),
    lambda: os.symlink('x.txt', 'l1', dir_fd=os.open('.', os.O_RDONLY)),
    lambda: os.rename('l1', 'l2', src_dir_fd=-100, dst_dir_fd=-100),
    lambda: os.unlink('l2'),
    lambda: os.rmdir('d1', dir_fd=-100),
    lambda: os.utime('x.txt', ns=(1000000002, 3)),
    lambda: os.utime(fd, None),
    lambda: os.posix_fadvise(fd, 1, 10, os.POSIX_FADV_DONTNEED),
]
for c in calls:
    try:
        c()
    except OSError:
        pass
'''
# 4.8's output (setarch -R; its heap addresses, the same here, as ADDR)
XATTR_UPSTREAM = '''setxattr("x.txt", "user.a", "ab", 3, XATTR_CREATE) user.a x.txt
lsetxattr("x.txt", "user.b", "\\x01\\x02q", 3, 0x0) user.b x.txt
fsetxattr(3, "user.c", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 60, XATTR_REPLACE|0x4) user.c 
getxattr("x.txt", "user.a", ADDR, 128) user.a x.txt
lgetxattr("x.txt", "user.a", ADDR, 128) user.a x.txt
fgetxattr(3, "user.a", ADDR, 128) user.a 
removexattr("x.txt", "user.a") user.a x.txt
lremovexattr("x.txt", "user.a") user.a x.txt
fremovexattr(3, "user.a") user.a 
listxattr("x.txt", ADDR, 256)  x.txt
llistxattr("x.txt", ADDR, 256)  x.txt
flistxattr(3, ADDR, 256)  
mkdir("d1", 0750)  
mkdirat(3, "d2", 0700)  
truncate("x.txt", 5)  x.txt
symlinkat("x.txt", 4, "l1")  
unlink("l2")  
utimensat(AT_FDCWD, "x.txt", [1.000000000][2.000000000], 0x0)  
utimensat(3, 0x0, NULL, 0x0)  
fadvise64(3, 1, 10, POSIX_FADV_DONTNEED)  
'''


# the struct decoders (_struct_timeval_u, _struct_itimerspec_u, _struct_timex_u,
# ...) and MSG_* flags (64-bit structures read with 4.8's 32-bit layouts);
# TIME_UPSTREAM is what 4.8 printed for the same script and program
TIME_SCRIPT = watch('adjtimex', 'adjtimex', 'select', 'setitimer', 'settimeofday',
                    'sigaltstack', 'sysinfo', 'times', 'timer_settime', 'timerfd_settime',
                    'recvmmsg', 'rt_sigsuspend', 'sendto', 'recvfrom', 'recvmsg', 'sendmsg',
                    'sendmmsg')
TIME_PY = PRELUDE + '''def pat(n, first=b''):
    return buf(first + bytes((i * 7 + 1) % 256 for i in range(n - len(first))))
sc(159, a(pat(208, b'\\0\\0\\0\\0')))                      # adjtimex modes 0
sc(159, 1)                                             # adjtimex fault
sc(23, 0, 0, 0, 0, a(buf(L(0, 1000))))                 # select
sc(23, 0, 0, 0, 0, a(buf(L(0, 0))))
sc(38, 1, a(buf(L(100, 5, 200, 7))), 0)                # setitimer VIRTUAL
sc(38, 1, a(buf(L(0, 0, 0, 0))), 0)
sc(38, 7, a(buf(L(0, 0, 0, 0))), 0)
sc(164, a(buf(L(5, 2000000))), a(buf(struct.pack('ii', 60, 1))))   # EINVAL
sc(164, 1, 0)
sc(131, a(buf(L(0x1000) + struct.pack('iI', 2, 0) + L(8192))), 0)  # sigaltstack
sc(131, 0, a(pat(24)))
sc(131, a(buf(L(0x2000) + struct.pack('iI', 5, 0) + L(4096))), 0)
sc(99, a(pat(112)))                                    # sysinfo
sc(100, a(pat(32)))                                    # times
tid = ctypes.c_int(0)
sc(222, 1, 0, ctypes.addressof(tid))                   # timer_create
sc(223, tid.value, 0, a(buf(L(0, 0, 100, 500))), 0)     # timer_settime
sc(223, tid.value, 1, a(buf(struct.pack('iiii', 1, 2, 3, 4) + b'\\0' * 16)), 0)
fd = sc(283, 1, 0)                                     # timerfd_create
sc(286, fd, 1, a(buf(L(0, 0, 0, 0))), 0)               # timerfd_settime
sc(286, fd, 3, 0, 0)
s1, s2 = socket.socketpair()
sc(299, s1.fileno(), 0, 0, 0x40, a(buf(L(1, 5))))       # recvmmsg
sc(299, s1.fileno(), 0, 0, 0, 0)
signal.signal(signal.SIGALRM, lambda *x: None)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
sc(38, 0, a(buf(L(0, 0, 0, 200000))), 0)
sc(130, a(buf(struct.pack('Q', (1 << 1) | (1 << 14)))), 8)   # rt_sigsuspend
sc(44, s1.fileno(), a(buf(b'hello\\x01')), 6, 0x4040, 0, 0)
s2.recv(10, socket.MSG_PEEK | socket.MSG_DONTWAIT)
s2.recvmsg(10, 0, socket.MSG_WAITALL | socket.MSG_DONTWAIT)
s1.sendmsg([b'q'], [], socket.MSG_MORE | 0x40000000)
sc(307, s1.fileno(), 0, 0, 0x4000)                     # sendmmsg
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b'x' * 70, socket.MSG_DONTWAIT, ('127.0.0.1', 9))
except OSError:
    pass
'''
TIME_UPSTREAM = '''adjtimex({0x0, constant=18446744072142689421, esterror=1784896597, freq=841688093, maxerror=1313292345, offset=370083841, precision=18446744072614293673, status=-2038466447, tick=774316057, tolerance=18446744073085897925})
adjtimex(0x1)
select(0, 0x0, 0x0, 0x0, [0.000000])
select(0, 0x0, 0x0, 0x0, [0.000000])
setitimer(ITIMER_VIRTUAL, [100.000000,5.000000], 0x0)
setitimer(ITIMER_VIRTUAL, [0.000000,0.000000], 0x0)
setitimer(0x7, [0.000000,0.000000], 0x0)
settimeofday([60.000001], [60, 1])
settimeofday(0x1, NULL)
sigaltstack({ss_sp=0x1000, ss_flags=SS_DISABLE, ss_size=8192}, 0x0)
sigaltstack(0x0, ADDR)
sigaltstack({ss_sp=0x2000, ss_flags=0x5, ss_size=4096}, 0x0)
sysinfo({uptime=3615022833237690369, loads=[7666072512169984057, 11717122191102277745, 15768171870034571433], totalram=1300138406242674913, freeram=5351186981351530521, sharedram=9402236660283824209, bufferram=13453286339216117897, totalswap=17504336018148411585, freeswap=3036301450533077241, procs=14385})
times({tms_utime=3615022833237690369, tms_stime=7666072512169984057, tms_cutime=11717122191102277745, tms_cstime=15768171870034571433})
timer_settime(0, 0, [0.000000,0.000000], 0x0)
timer_settime(0, 1, [1.000002,3.000004], 0x0)
timerfd_settime(3, TFD_TIMER_ABSTIME, [0.000000,0.000000], 0x0)
timerfd_settime(3, TFD_TIMER_ABSTIME|TFD_TIMER_CANCEL_ON_SET, NULL, 0x0)
recvmmsg(4, 0x0, 0, MSG_DONTWAIT, [1.000000000])
recvmmsg(4, 0x0, 0, 0x0, NULL)
setitimer(ITIMER_REAL, [0.000000,0.000000], 0x0)
rt_sigsuspend([SIGINT|SIGTERM], 8)
sendto(4, "hello\\001", 6, MSG_DONTWAIT|MSG_NOSIGNAL, NULL, 0)
recvfrom(5, ADDR, 10, MSG_PEEK|MSG_DONTWAIT, 0x0, 0x0)
recvmsg(5, ADDR, MSG_DONTWAIT|MSG_WAITALL)
sendmsg(4, ADDR, MSG_MORE|MSG_CMSG_CLOEXEC)
sendmmsg(4, 0x0, 0, MSG_NOSIGNAL)
sendto(6, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 70, MSG_DONTWAIT, {AF_INET, 127.0.0.1, 9}, 16)
'''


# calls over two kernel functions with bodies of their own (pipe, pipe2, ...);
# FD_UPSTREAM is what 4.8 printed: it never probes epoll_create and signalfd
# (only epoll_create1, signalfd4) and pipe.return reads an int-truncated pointer
FD_SCRIPT = '''probe nd_syscall.epoll_create, nd_syscall.eventfd, nd_syscall.inotify_init,
      nd_syscall.pipe, nd_syscall.signalfd {
	if (execname() == "python3")
		printf("%s(%s)\\n", name, argstr)
}
probe nd_syscall.epoll_create.return, nd_syscall.eventfd.return,
      nd_syscall.inotify_init.return, nd_syscall.signalfd.return {
	if (execname() == "python3")
		printf("%s = %s\\n", name, retstr)
}
probe nd_syscall.pipe.return {
	if (execname() == "python3")
		printf("%s = %s [%d, %d]\\n", name, retstr, pipe0, pipe1)
}
'''
FD_PY = '''import ctypes, os, select, struct
libc = ctypes.CDLL(None, use_errno=True)
_sc = libc.syscall
_sc.restype = ctypes.c_long
sc = lambda *v: _sc(*[ctypes.c_long(x) for x in v])
a = lambda b: ctypes.cast(b, ctypes.c_void_p).value
fds = ctypes.create_string_buffer(8)
mask = ctypes.create_string_buffer(struct.pack('Q', 1 << 9), 8)
select.epoll()                       # epoll_create1(EPOLL_CLOEXEC)
sc(291, 0)                           # epoll_create1(0)
sc(213, 5)                           # epoll_create(5)
sc(213, -1)
os.eventfd(3, os.EFD_NONBLOCK | os.EFD_SEMAPHORE)
sc(284, 7)                           # eventfd
sc(253)                              # inotify_init
sc(294, 0o4000)                      # inotify_init1(IN_NONBLOCK)
sc(294, 0)
sc(22, a(fds))                       # pipe
sc(293, a(fds), 0o2004000)           # pipe2(O_NONBLOCK|O_CLOEXEC)
sc(293, 0, 0)
sc(282, -1, a(mask), 8)              # signalfd
sc(289, -1, a(mask), 8, 0o4000)      # signalfd4(SFD_NONBLOCK)
sc(289, -1, a(mask), 8, 0)
'''
FD_UPSTREAM = '''epoll_create1(EPOLL_CLOEXEC)
epoll_create1 = 3
epoll_create(0)
epoll_create = 3
eventfd2(3, EFD_NONBLOCK|EFD_SEMAPHORE)
eventfd2 = 5
eventfd(7)
eventfd = 6
inotify_init()
inotify_init = 7
inotify_init1(IN_NONBLOCK)
inotify_init1 = 8
inotify_init1(0x0)
inotify_init1 = 9
pipe([0, 0])
pipe = 0 [0, 0]
pipe2([10, 11], O_NONBLOCK|O_CLOEXEC)
pipe2 = 0 [12, 13]
pipe2(NULL)
pipe2 = -14 (EFAULT) [0, 0]
signalfd4(-1, ADDR, 8, SFD_NONBLOCK)
signalfd4 = 15
signalfd(-1, ADDR, 8)
signalfd = 16
'''


# struct sigaction and sched_attr; SA_UPSTREAM is what 4.8 printed
SA_SCRIPT = watch('sched_getattr', 'sched_getattr', 'sched_setattr', 'rt_sigaction')
SA_PY = PRELUDE + '''pat = buf(bytes((i * 5 + 3) % 256 for i in range(56)))
sc(315, 0, a(pat), 56, 0)                              # sched_getattr
sc(315, 0, 0, 56, 0)
attr = struct.pack('IIQiIQQQ', 48, 0, 0, 3, 0, 0, 0, 0)
sc(314, 0, a(buf(attr)), 0)                            # sched_setattr
sc(314, 0, 1, 0)
signal.signal(signal.SIGUSR1, lambda *x: None)
signal.signal(signal.SIGUSR2, signal.SIG_IGN)
signal.signal(signal.SIGUSR2, signal.SIG_DFL)
act = struct.pack('QQQQ', 0x401000, 0x04000000 | 0x10000000 | 4 | 0x100, 0x402000,
                  (1 << 1) | (1 << 14) | (1 << 33))
sc(13, 10, a(buf(act)), 0, 8)                          # rt_sigaction
sc(13, 12, a(buf(struct.pack('QQQQ', 0x1234, 0, 0, 0))), 0, 8)
sc(13, 12, 0, a(buf(b'\\0' * 32)), 8)
sc(13, 12, 1, 0, 8)
'''
SA_UPSTREAM = '''sched_getattr(0, {size=302843907, sched_policy=639704087, sched_flags=5641115046608449579, sched_nice=1650284627, sched_priority=1987144807, sched_runtime=11428328873654583419, sched_deadline=14321935787177650339, sched_period=17215542700700717259}, 56, 0)
sched_getattr(0, NULL, 56, 0)
sched_setattr(0, {size=48, sched_policy=0, sched_flags=0, sched_nice=3, sched_priority=0, sched_runtime=0, sched_deadline=0, sched_period=0}, 0)
sched_setattr(0, 0x1, 0)
rt_sigaction(SIGUSR1, {0x678ec0, SA_ONSTACK|SA_RESTORER, ADDR, [EMPTY]}, ADDR, 8)
rt_sigaction(SIGUSR2, {SIG_IGN}, ADDR, 8)
rt_sigaction(SIGUSR2, {SIG_DFL}, ADDR, 8)
rt_sigaction(SIGUSR1, {0x401000, SA_RESTART|SA_SIGINFO|SA_RESTORER|0x100, 0x402000, [SIGINT|SIGTERM]}, 0x0, 8)
rt_sigaction(SIGUSR2, {0x1234, 0x0, 0x0, [EMPTY]}, 0x0, 8)
rt_sigaction(SIGUSR2, {NULL}, ADDR, 8)
rt_sigaction(SIGUSR2, {0x1}, 0x0, 8)
rt_sigaction(SIGINT, {SIG_DFL}, ADDR, 8)
rt_sigaction(SIGUSR1, {SIG_DFL}, ADDR, 8)
'''


# utimbuf, timeval pairs and the statx mask; UT_UPSTREAM is what 4.8 printed
UT_SCRIPT = watch('utime', 'utime', 'utimes', 'futimesat', 'statx')
UT_PY = PRELUDE + '''open('u.txt', 'w').close()
name = buf(b'u.txt\\0')
sc(132, a(name), a(buf(L(1000000000, 1500000000))))   # utime
sc(132, a(name), 0)
sc(235, a(name), a(buf(L(7, 8, 9, 10))))              # utimes
sc(235, a(name), 0)
sc(261, -100, a(name), a(buf(L(0, 12, 0, 13))))       # futimesat
sc(261, 3, 0, 1)
st = buf(b'\\0' * 256)
sc(332, -100, a(name), 0x100, 0, a(st))               # statx
sc(332, -100, a(name), 0, 0x7ff, a(st))
sc(332, 5, a(name), 0x2000, 0x4000, 0)
'''
UT_UPSTREAM = '''utime("u.txt", [Sun Sep  9 01:46:40 2001, Fri Jul 14 02:40:00 2017])
utime("u.txt", [Thu Jan  1 00:00:00 1970, Thu Jan  1 00:00:00 1970])
utimes("u.txt", [7.000000][8.000000])
utimes("u.txt", NULL)
futimesat(AT_FDCWD, "u.txt", [0.000000][12.000000])
futimesat(3, 0x0, 0x1)
statx(AT_FDCWD, "u.txt", AT_SYMLINK_NOFOLLOW, AT_STATX_SYNC_AS_STAT, ADDR)
statx(AT_FDCWD, "u.txt", 0x0, 0x7ff, ADDR)
statx(5, "u.txt", 0x2000, AT_STATX_DONT_SYNC, 0x0)
'''


# RENAME_*, umount and inotify flags, io_getevents' timeout; RN_UPSTREAM is
# what 4.8 printed
RN_SCRIPT = watch('renameat2', 'renameat2', 'umount', 'inotify_add_watch', 'io_getevents')
RN_PY = PRELUDE + '''open('r1', 'w').close()
r1, r2 = buf(b'r1\\0'), buf(b'r2\\0')
sc(316, -100, a(r1), -100, a(r2), 1)                  # renameat2 NOREPLACE
sc(316, -100, a(r2), 3, a(r1), 6 | 8)
sc(316, -100, a(r1), -100, a(r2), 0)
sc(166, a(buf(b'/nonexistent\\0')), 2 | 8)             # umount2
sc(166, a(r1), 0x10)
fd = sc(253)
sc(254, fd, a(r1), 0x2 | 0x100 | 0x40000000 | 0x10000)   # inotify_add_watch
sc(254, fd, a(r1), 0)
sc(208, 0, 1, 2, 0, a(buf(struct.pack('qq', 1, 0))))   # io_getevents
sc(208, 0, -1, 5, 0, 0)
'''
RN_UPSTREAM = '''renameat2(AT_FDCWD, "r1", AT_FDCWD, "r2", RENAME_NOREPLACE)
renameat2(AT_FDCWD, "r2", 3, "r1", RENAME_EXCHANGE|RENAME_WHITEOUT|0x8)
renameat2(AT_FDCWD, "r1", AT_FDCWD, "r2", 0x0)
umount("/nonexistent", MNT_DETACH|UMOUNT_NOFOLLOW)
umount("r1", 0x10)
inotify_add_watch(3, "r1", IN_MODIFY|IN_CREATE|IN_ISDIR|0x10000)
inotify_add_watch(3, "r1", 0x0)
io_getevents(0, 1, 2, 0x0, [1.000000000])
io_getevents(0, -1, 5, 0x0, NULL)
'''


# MS_* mount flags and SWAP_FLAG_*; MT_UPSTREAM is what 4.8 printed
MT_SCRIPT = watch('mount', 'mount', 'swapon')
MT_PY = PRELUDE + '''src, tgt, fs = buf(b'none\\0'), buf(b'/nonexistent\\0'), buf(b'tmpfs\\0')
sc(165, a(src), a(tgt), a(fs), 1 | 8 | 0x1000 | 0x4000 | 0x8000 | (1 << 21) | (1 << 30), a(buf(b'size=1m,' + b'x' * 60 + b'\\0')))
sc(165, a(src), a(tgt), 0, 0, 0)
sc(167, a(buf(b'/nonexistent-swap\\0')), 0x8000 | 5 | 0x10000)   # swapon
sc(167, a(buf(b'/nonexistent-swap\\0')), 0)
sc(167, a(buf(b'/nonexistent-swap\\0')), 0x100000 | 7)
'''
MT_UPSTREAM = '''mount("none", "/nonexistent", "tmpfs", MS_RDONLY|MS_NOEXEC|MS_BIND|MS_REC|MS_SILENT|MS_RELATIME|0x40000000, "size=1m,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
mount("none", "/nonexistent", 0x0, 0x0, 0x0)
swapon("/nonexistent-swap", SWAP_FLAG_PREFER|SWAP_FLAG_DISCARD|5)
swapon("/nonexistent-swap", 0x0)
swapon("/nonexistent-swap", 0x100000)
'''


# preadv/pwritev (2): the offset, RWF_HIPRI; PV_UPSTREAM is what 4.8 printed
PV_SCRIPT = watch('pwritev', 'preadv', 'preadv2', 'pwritev', 'pwritev2')
PV_PY = PRELUDE + '''fd = os.open('pv.txt', os.O_RDWR | os.O_CREAT, 0o600)
sc(296, fd, 0, 0, 0x12345, 0)                         # pwritev
sc(295, fd, 0, 0, 7, 0)                               # preadv
sc(328, fd, 0, 0, 3, 0, 1)                            # pwritev2 RWF_HIPRI
sc(327, fd, 0, 0, 0x100000000, 0, 8 | 2)              # preadv2
sc(327, fd, 0, 0, 5, 0, 0)
'''
PV_UPSTREAM = '''pwritev(3, 0x0, 0, 0x12345)
preadv(3, 0x0, 0, 0x7)
pwritev2(3, 0x0, 0, 0x3, RWF_HIPRI)
preadv2(3, 0x0, 0, 0x100000000, 0xa)
preadv2(3, 0x0, 0, 0x5, 0x0)
'''


# membarrier commands and mq_open's O_CREAT form; MQ_UPSTREAM is what 4.8 printed
MQ_SCRIPT = watch('membarrier', 'membarrier', 'mq_open')
MQ_PY = PRELUDE + '''sc(324, 0, 0)                                         # membarrier QUERY
sc(324, 1, 0)
sc(324, 8, 3)
q = buf(b'stapq\\0')
sc(240, a(q), 0o102, 0o600, 0)                        # mq_open O_RDWR|O_CREAT
sc(240, a(q), 0o4000, 0o777, 0)                       # O_NONBLOCK
sc(241, a(q))                                         # mq_unlink
'''
MQ_UPSTREAM = '''membarrier(MEMBARRIER_CMD_QUERY, 0)
membarrier(MEMBARRIER_CMD_SHARED, 0)
membarrier(0x8, 3)
mq_open("stapq", O_RDWR|O_CREAT, 0600, 0x0)
mq_open("stapq", O_RDONLY|O_NONBLOCK)
'''


def run_watched(krel, tmp, runs, timeout=180):
    """Build each {name: (script, program or None)} and run them in one
    guest boot, each script with its Python program as `staprun -c`
    (setarch -R: the addresses of 4.8's runs): {name: Result}."""
    cmds = []
    for name, (script, prog) in runs.items():
        (tmp / f'{name}.stp').write_text(script)
        r = run_stap(['-p4', '-r', krel, '-m', name, f'{name}.stp'], cwd=tmp)
        assert r.returncode == 0, r.stderr
        cmd = f'{STAPRUN} {name}.ko'
        if prog:
            (tmp / f'{name}.py').write_text(prog)
            cmd = f"{STAPRUN} -c 'setarch x86_64 -R python3 {name}.py' {name}.ko"
        cmds.append(f'cd {tmp} && {cmd}')
    batch = guest.run_batch(cmds, scratch=str(tmp), timeout=timeout)
    guest.check_kernel_healthy(batch)
    return dict(zip(runs, batch))


@pytest.fixture(scope='module')
def guest_runs(krel, tools, tmp_path_factory):
    """The scripts built and run in one guest boot: {name: Result}."""
    return run_watched(krel, tmp_path_factory.mktemp('ndsc'), {
        'xa': (XATTR_SCRIPT, XATTR_PY), 'tm': (TIME_SCRIPT, TIME_PY),
        'fd': (FD_SCRIPT, FD_PY), 'sa': (SA_SCRIPT, SA_PY),
        'ut': (UT_SCRIPT, UT_PY), 'rn': (RN_SCRIPT, RN_PY),
        'mt': (MT_SCRIPT, MT_PY), 'pv': (PV_SCRIPT, PV_PY),
        'mq': (MQ_SCRIPT, MQ_PY)})


@pytest.mark.parametrize('name,expected', [('xa', XATTR_UPSTREAM), ('tm', TIME_UPSTREAM),
                                           ('fd', FD_UPSTREAM), ('sa', SA_UPSTREAM),
                                           ('ut', UT_UPSTREAM), ('rn', RN_UPSTREAM),
                                           ('mt', MT_UPSTREAM), ('pv', PV_UPSTREAM),
                                           ('mq', MQ_UPSTREAM)])
def test_argstr_as_upstream(guest_runs, name, expected):
    res = guest_runs[name]
    out = re.sub(r'0x7fff[0-9a-f]{8}', 'ADDR', res.stdout)
    assert (out, res.rc) == (expected, 0)
