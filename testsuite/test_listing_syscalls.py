# stap -L 'nd_syscall.*' and 'nd_syscall.*.return' (and syscall.*, which
# 4.8 lists alike: dw_syscall needs DWARF, so nd_syscall is what stays)
# against SystemTap 4.8's listing on this host, recorded once in
# listing/nd_syscall-L.txt and listing/nd_syscall-return-L.txt with
# `/usr/bin/stap -r BUILD -L ...`, BUILD a copy of the 6.1 headers' build
# directory with a System.map made from the guest's /proc/kallsyms (so
# 4.8's kprobe-based nd2_syscall points resolve, as in test_listing.py).
#
# KNOWN lists the probes whose line still differs (tapsets/gen/syscalls.tbl
# has other variables for them, or 4.8 lists them through its
# tracepoint-based tp_syscall fallback, its @entry helpers or socketcall
# multiplexing, or they are ia32/compat-only calls we do not provide):
# the compat_* (ia32) calls are not provided either. Every other line
# must be 4.8's byte for byte, and a KNOWN line that
# starts to match must leave the list.
import re
from pathlib import Path

import pytest

import guest
from conftest import STAPRUN, run_stap

HERE = Path(__file__).resolve().parent

KNOWN = set('''
adjtimex bind clone connect epoll_create eventfd execveat fadvise64_64
futimesat get_thread_area inotify_add_watch inotify_init io_getevents
lookup_dcookie membarrier mount mq_open pipe preadv preadv2 pwritev pwritev2
quotactl recv recvmmsg renameat2 rt_sigaction rt_sigqueueinfo rt_sigsuspend
rt_sigtimedwait rt_tgsigqueueinfo sched_getattr sched_setattr select semctl
send sendto set_thread_area setitimer setregid16 setresgid16 setresuid16
setreuid16 settimeofday sigaltstack signal signalfd sigsuspend ssetmask statx
swapon sysinfo timer_settime timerfd_settime times umount utime utimes
bdflush ftruncate64 ni_syscall pwrite32 readdir rt_sigaction32 settimeofday32
sigaction sigaction32 sysctl ustat32
'''.split())
KNOWN_RETURN = set('''
accept accept4 bind clone connect epoll_create fadvise64_64 getpeername
getsockname getsockopt listen lookup_dcookie msgget pipe ptrace recv recvfrom
recvmsg semget semop send sendmmsg sendmsg sendto setsockopt shmdt shmget
shutdown signalfd socket socketpair wait4
bdflush ftruncate64 ni_syscall pwrite32 readdir
rt_sigaction32 settimeofday32 sigaction sigaction32 sysctl ustat32
'''.split())


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


def test_xattr_argstr_as_upstream(krel, tools, tmp_path):
    (tmp_path / 'xa.stp').write_text(XATTR_SCRIPT)
    (tmp_path / 'xa.py').write_text(XATTR_PY)
    r = run_stap(['-p4', '-r', krel, '-m', 'xa', 'xa.stp'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    batch = guest.run_batch([f"cd {tmp_path} && {STAPRUN} -c 'setarch x86_64 -R python3 xa.py' xa.ko"],
                            scratch=str(tmp_path), timeout=120)
    guest.check_kernel_healthy(batch)
    out = re.sub(r'0x7fff[0-9a-f]{8}', 'ADDR', batch[0].stdout)
    assert (out, batch[0].rc) == (XATTR_UPSTREAM, 0)
