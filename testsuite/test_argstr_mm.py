# argstr of the memory, NUMA, scheduling and priority syscalls (madvise,
# mremap, msync, mlock, mlock2, munlock, mincore, mlockall,
# remap_file_pages, memfd_create, memfd_secret, userfaultfd, pkey_*, the
# mempolicy calls, move_pages, sched_*, ioprio_*, set/getpriority, kcmp,
# seccomp) against what SystemTap 4.8 printed for the same script and
# program in the test guest (recorded once below as *_UPSTREAM,
# 0x7fff........ addresses as ADDR). The decoders are in
# tapsets/linux/sc_flags_mm.stp. Arguments that would change the guest
# (poison a page, strict seccomp, real-time priorities) fail with EINVAL,
# EFAULT or ESRCH before doing anything.
import re

import pytest

from test_listing_syscalls import PRELUDE, run_watched, watch

# a fixed anonymous mapping M of 16 pages for the calls to work on
MAP = '''M = 0x10000000
sc(9, M, 0x10000, 3, 0x32, -1, 0)                      # mmap FIXED|PRIVATE|ANON
'''

# mremap's retstr is in hex
MREMAP_RETURN = '''probe nd_syscall.mremap.return {
	if (execname() == "python3")
		printf("%s = %s\\n", name, retstr)
}
'''
MM_SCRIPT = watch('madvise', 'madvise', 'mremap', 'msync', 'mlock2', 'mlock', 'munlock',
                  'mincore', 'mlockall', 'remap_file_pages', 'memfd_create', 'memfd_secret',
                  'userfaultfd', 'pkey_alloc', 'pkey_mprotect') + MREMAP_RETURN
MM_PY = PRELUDE + MAP + '''sc(28, M, 0x1000, 0)                                  # madvise NORMAL
sc(28, M, 0x2000, 3)                                  # WILLNEED
sc(28, M, 0x1000, 4)                                  # DONTNEED
sc(28, M, 0x1000, 8)                                  # FREE
sc(28, M, 0x4000, 14)                                 # HUGEPAGE
sc(28, M, 0x1000, 17)                                 # DODUMP
sc(28, M + 1, 0x1000, 100)                            # HWPOISON, unaligned: EINVAL
sc(28, M, 0x1000, 21)                                 # PAGEOUT, unknown to 4.8
sc(28, M + 1, 0, -1)
sc(25, M, 0x1000, 0x2000, 0, 0)                       # mremap in place: ENOMEM
sc(25, M + 0x8000, 0x1000, 0x1000, 3, 0x20000000)     # MAYMOVE|FIXED
sc(25, M + 0x4000, 0x1000, 0x2000, 1, 0)              # MAYMOVE
sc(25, M, 0x1000, -1, 0x4 | 0x100, 0)                 # EINVAL
sc(26, M, 0x1000, 4)                                  # msync SYNC
sc(26, M, 0x1000, 1 | 2)
sc(26, M, 0x1000, 0)
sc(26, M + 1, 0x1000, 8 | 4)
sc(325, M, 0x1000, 0)                                 # mlock2
sc(325, M, 0x1000, 1)
sc(325, M, 0x1000, 6)
sc(149, M, 0x1000)                                    # mlock
sc(150, M, 0x1000)                                    # munlock
sc(150, M, -1)
sc(27, M, 0x2000, a(buf(b'\\0' * 2)))                 # mincore
sc(27, M + 1, 0, 0)
sc(151, 0)                                            # mlockall: EINVAL
sc(151, 2 | 4)                                        # FUTURE|ONFAULT
sc(152)                                               # munlockall
sc(151, 1 | 8)
sc(216, M, 0x1000, 0, 0, 0)                           # remap_file_pages: EINVAL
sc(216, M, 0x1000, 3, 1, 0x10000 | 2)
name = buf(b'stapmfd\\0')
sc(319, a(name), 1)                                   # memfd_create CLOEXEC
sc(319, a(name), 3)
sc(319, a(name), 0)
sc(319, a(name), 4 | 0x100)
sc(319, 0, 0)
sc(319, 1, 0x80000)
sc(447, 0)                                            # memfd_secret
sc(447, 0x80000)
sc(447, 1)
sc(323, 0o2004000)                                    # userfaultfd CLOEXEC|NONBLOCK
sc(323, 0)
sc(323, 1)
sc(330, 0, 0)                                         # pkey_alloc
sc(330, 0, 1)
sc(330, 0, 3)
sc(330, 1, 4)
sc(329, M, 0x1000, 3, -1)                             # pkey_mprotect
sc(329, M, 0x1000, 0x10, 5)
sc(329, M + 0x1000, 0x1000, 0, -1)
'''
MM_UPSTREAM = '''madvise(0x10000000, 4096, MADV_NORMAL)
madvise(0x10000000, 8192, MADV_WILLNEED)
madvise(0x10000000, 4096, MADV_DONTNEED)
madvise(0x10000000, 4096, MADV_FREE)
madvise(0x10000000, 16384, MADV_HUGEPAGE)
madvise(0x10000000, 4096, MADV_DODUMP)
madvise(0x10000001, 4096, MADV_HWPOISON)
madvise(0x10000000, 4096, 0x15)
madvise(0x10000001, 0, 0xffffffff)
mremap(0x10000000, 4096, 8192, 0x0, 0x0)
mremap = -12 (ENOMEM)
mremap(0x10008000, 4096, 4096, MREMAP_MAYMOVE|MREMAP_FIXED, 0x20000000)
mremap = 0x20000000
mremap(0x10004000, 4096, 8192, MREMAP_MAYMOVE, 0x0)
mremap = ADDR
mremap(0x10000000, 4096, -1, 0x104, 0x0)
mremap = -22 (EINVAL)
msync(0x10000000, 4096, MS_SYNC)
msync(0x10000000, 4096, MS_ASYNC|MS_INVALIDATE)
msync(0x10000000, 4096, 0x0)
msync(0x10000001, 4096, MS_SYNC|0x8)
mlock2(0x10000000, 4096, 0x0)
mlock2(0x10000000, 4096, MLOCK_ONFAULT)
mlock2(0x10000000, 4096, 0x6)
mlock(0x10000000, 4096)
munlock(0x10000000, 4096)
munlock(0x10000000, -1)
mincore(0x10000000, 8192, ADDR)
mincore(0x10000001, 0, 0x0)
mlockall(0x0)
mlockall(MCL_FUTURE|MCL_ONFAULT)
mlockall(MCL_CURRENT|0x8)
remap_file_pages(0x10000000, 0x1000, PROT_NONE, 0x0, 0x0)
remap_file_pages(0x10000000, 0x1000, PROT_READ|PROT_WRITE, 0x1, MAP_PRIVATE|MAP_NONBLOCK)
memfd_create("stapmfd", MFD_CLOEXEC)
memfd_create("stapmfd", MFD_CLOEXEC|MFD_ALLOW_SEALING)
memfd_create("stapmfd", 0x0)
memfd_create("stapmfd", 0x104)
memfd_create(0x0, 0x0)
memfd_create(0x1, O_CLOEXEC)
memfd_secret(0x0)
memfd_secret(O_CLOEXEC)
memfd_secret(MFD_CLOEXEC)
userfaultfd(O_NONBLOCK|O_CLOEXEC)
userfaultfd(0x0)
userfaultfd(0x1)
pkey_alloc(0, 0x0)
pkey_alloc(0, PKEY_DISABLE_ACCESS)
pkey_alloc(0, PKEY_DISABLE_ACCESS|PKEY_DISABLE_WRITE)
pkey_alloc(1, 0x4)
pkey_mprotect(0x10000000, 4096, PROT_READ|PROT_WRITE, -1)
pkey_mprotect(0x10000000, 4096, 0x10, 5)
pkey_mprotect(0x10001000, 4096, PROT_NONE, -1)
'''

NUMA_SCRIPT = watch('get_mempolicy', 'get_mempolicy', 'set_mempolicy', 'mbind', 'move_pages')
NUMA_PY = PRELUDE + MAP + '''mode = buf(b'\\0' * 8)
sc(239, a(mode), 0, 0, 0, 0)                          # get_mempolicy
sc(239, a(mode), 0, 0, M, 3)                          # F_NODE|F_ADDR
sc(239, 0, 0, 0, 0, 4)                                # F_MEMS_ALLOWED
sc(239, 0, 0, 0, 0, 8 | 1)
sc(238, 0, 0, 0)                                      # set_mempolicy DEFAULT
sc(238, 2, 0, 0)                                      # BIND, no nodes: EINVAL
sc(238, 2 | 0x8000, 0, 0)                             # STATIC_NODES|BIND
sc(238, 1 | 0x4000 | 0x8000, 0, 0)
sc(238, 4 | 0x2000, 0, 0)                             # NUMA_BALANCING: EINVAL
sc(238, 5, 0, 0)
sc(238, 6, 0, 0)
sc(238, -1, 0, 0)
sc(238, 3, 1, 64)                                     # INTERLEAVE, bad mask: EFAULT
sc(237, M, 0x1000, 0, 0, 0, 0)                        # mbind DEFAULT
sc(237, M, 0x1000, 2 | 0x8000, 0, 0, 1 | 2)
sc(237, M, 0x1000, 1, 1, 64, 0x100)                   # EINVAL
sc(237, M + 1, 0x1000, -1, 0, 0, 4)
pages = buf(L(M))
status = buf(b'\\0' * 8)
sc(279, 0, 0, 0, 0, 0, 0)                             # move_pages
sc(279, 0, 1, a(pages), 0, a(status), 2)
sc(279, -1, 0, 0, 0, 0, 4 | 8)
'''
NUMA_UPSTREAM = '''get_mempolicy(ADDR, 0x0, 0, 0x0, 0x0)
get_mempolicy(ADDR, 0x0, 0, 0x10000000, MPOL_F_NODE|MPOL_F_ADDR)
get_mempolicy(0x0, 0x0, 0, 0x0, MPOL_F_MEMS_ALLOWED)
get_mempolicy(0x0, 0x0, 0, 0x0, MPOL_F_NODE|0x8)
set_mempolicy(MPOL_DEFAULT, 0x0, 0)
set_mempolicy(MPOL_BIND, 0x0, 0)
set_mempolicy(MPOL_F_STATIC_NODES|MPOL_BIND, 0x0, 0)
set_mempolicy(0xc000|MPOL_PREFERRED, 0x0, 0)
set_mempolicy(0x2000|0x4, 0x0, 0)
set_mempolicy(0x5, 0x0, 0)
set_mempolicy(0x6, 0x0, 0)
set_mempolicy(0xffffffff, 0x0, 0)
set_mempolicy(MPOL_INTERLEAVE, 0x1, 64)
mbind(0x10000000, 4096, MPOL_DEFAULT, 0x0, 0, 0x0)
mbind(0x10000000, 4096, MPOL_F_STATIC_NODES|MPOL_BIND, 0x0, 0, MPOL_F_NODE|MPOL_F_ADDR)
mbind(0x10000000, 4096, MPOL_PREFERRED, 0x1, 64, 0x100)
mbind(0x10000001, 4096, 0xffffffff, 0x0, 0, MPOL_F_MEMS_ALLOWED)
move_pages(0, 0, 0x0, 0x0, 0x0, 0x0)
move_pages(0, 1, ADDR, 0x0, ADDR, MPOL_F_ADDR)
move_pages(-1, 0, 0x0, 0x0, 0x0, MPOL_F_MEMS_ALLOWED|0x8)
'''

SCHED_SCRIPT = watch('sched_get_priority_max', 'sched_get_priority_max',
                     'sched_get_priority_min', 'sched_setscheduler', 'ioprio_get',
                     'ioprio_set', 'setpriority', 'getpriority', 'kcmp', 'seccomp')
SCHED_PY = PRELUDE + '''for p in (0, 1, 2, 3, 5, 6, 7):
    sc(146, p)                                        # sched_get_priority_max
for p in (0x40000002, 0x40000000, -1, 0x80000000, 0x40000009):
    sc(147, p)                                        # sched_get_priority_min
sc(144, 0, 1, 0)                                      # sched_setscheduler: EINVAL
sc(144, 0, 0x40000000 | 3, 0)
sc(144, -1, 9, 1)
for w in (1, 2, 3, 0, -1):
    sc(252, w, 99999)                                 # ioprio_get
sc(251, 1, 0, (2 << 13) | 4)                          # ioprio_set BE|4
sc(251, 1, 99999, (1 << 13) | 7)                      # RT: ESRCH
sc(251, 1, 0, 0)
sc(251, 2, 99999, 3 << 13)
sc(251, 7, 0, (5 << 13) | 0x1fff)
sc(251, 1, 99999, 0xffffffff)
sc(141, 0, 0, 0)                                      # setpriority PROCESS
sc(141, 1, 99999, 5)
sc(141, 2, 99999, -3)
sc(141, 3, 0, 0)
sc(141, -1, 0, 0)
sc(140, 0, 0)                                         # getpriority
sc(140, 2, 99999)
sc(140, 7, 0)
for t in (0, 1, 6, 7, 8, 99):
    sc(312, 1, 1, t, 0, 1)                            # kcmp
sc(312, -1, 0, 2, 3, 4)
sc(317, 0, 1, 0)                                      # seccomp STRICT, flags: EINVAL
sc(317, 1, 0, 0)                                      # FILTER, NULL: EFAULT
sc(317, 1, 1, 0)                                      # TSYNC
sc(317, 1, 3, 0)
sc(317, 2, 0, a(buf(struct.pack('I', 0x7fff0000))))  # GET_ACTION_AVAIL
sc(317, 9, 0, 1)
'''
SCHED_UPSTREAM = '''sched_get_priority_max(SCHED_OTHER)
sched_get_priority_max(SCHED_FIFO)
sched_get_priority_max(SCHED_RR)
sched_get_priority_max(SCHED_BATCH)
sched_get_priority_max(SCHED_IDLE)
sched_get_priority_max(SCHED_DEADLINE)
sched_get_priority_max(0x7)
sched_get_priority_min(SCHED_RESET_ON_FORK|SCHED_RR)
sched_get_priority_min(SCHED_RESET_ON_FORK|SCHED_OTHER)
sched_get_priority_min(0xffffffff)
sched_get_priority_min(0x80000000)
sched_get_priority_min(SCHED_RESET_ON_FORK|0x9)
sched_setscheduler(0, SCHED_FIFO, 0x0)
sched_setscheduler(0, SCHED_RESET_ON_FORK|SCHED_BATCH, 0x0)
sched_setscheduler(-1, 0x9, 0x1)
ioprio_get(IOPRIO_WHO_PROCESS, 99999)
ioprio_get(IOPRIO_WHO_PGRP, 99999)
ioprio_get(IOPRIO_WHO_USER, 99999)
ioprio_get(0, 99999)
ioprio_get(-1, 99999)
ioprio_set(IOPRIO_WHO_PROCESS, 0, IOPRIO_CLASS_BE|4)
ioprio_set(IOPRIO_WHO_PROCESS, 99999, IOPRIO_CLASS_RT|7)
ioprio_set(IOPRIO_WHO_PROCESS, 0, IOPRIO_CLASS_NONE|0)
ioprio_set(IOPRIO_WHO_PGRP, 99999, IOPRIO_CLASS_IDLE|0)
ioprio_set(7, 0, 0x5|8191)
ioprio_set(IOPRIO_WHO_PROCESS, 99999, 0x7|8191)
setpriority(PRIO_PROCESS, 0, 0)
setpriority(PRIO_PGRP, 99999, 5)
setpriority(PRIO_USER, 99999, -3)
setpriority(0x3, 0, 0)
setpriority(0xffffffff, 0, 0)
getpriority(PRIO_PROCESS, 0)
getpriority(PRIO_USER, 99999)
getpriority(0x7, 0)
kcmp(1, 1, KCMP_FILE, 0, 1)
kcmp(1, 1, KCMP_VM, 0, 1)
kcmp(1, 1, KCMP_SYSVSEM, 0, 1)
kcmp(1, 1, 0x7, 0, 1)
kcmp(1, 1, KCMP_TYPES, 0, 1)
kcmp(1, 1, 0x63, 0, 1)
kcmp(-1, 0, KCMP_FILES, 3, 4)
seccomp(SECCOMP_SET_MODE_STRICT, SECCOMP_FILTER_FLAG_TSYNC, 0x0)
seccomp(SECCOMP_SET_MODE_FILTER, 0x0, 0x0)
seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, 0x0)
seccomp(SECCOMP_SET_MODE_FILTER, 0x3, 0x0)
seccomp(0x2, 0x0, ADDR)
seccomp(0x9, 0x0, 0x1)
'''

RUNS = {'mm': (MM_SCRIPT, MM_PY), 'numa': (NUMA_SCRIPT, NUMA_PY),
        'sched': (SCHED_SCRIPT, SCHED_PY)}
UPSTREAM = {'mm': MM_UPSTREAM, 'numa': NUMA_UPSTREAM, 'sched': SCHED_UPSTREAM}


def normalised(text):
    return re.sub(r'0x7fff[0-9a-f]{8}', 'ADDR', text)


@pytest.fixture(scope='module')
def guest_runs(krel, tools, tmp_path_factory):
    """The scripts built and run in one guest boot: {name: Result}."""
    return run_watched(krel, tmp_path_factory.mktemp('argstr_mm'), RUNS, 120)


@pytest.mark.parametrize('name', list(RUNS))
def test_argstr_as_upstream(guest_runs, name):
    res = guest_runs[name]
    assert (normalised(res.stdout), res.rc) == (UPSTREAM[name], 0)
