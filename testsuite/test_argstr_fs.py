# The argstr of the file, module, kexec, perf, bpf, reboot and namespace
# syscalls (their flag and constant decoders are tapsets/linux/sc_flags_fs.stp)
# against what SystemTap 4.8 printed for the same script and program in the
# guest (recorded once: 4.8's module built with
# `/usr/bin/stap -R /tmp/stap-rt -r 6.1.0-56-amd64 -p4` and run with
# /usr/bin/staprun -c 'setarch x86_64 -R python3 PROG'; user stack and heap
# addresses, the same there and here, as ADDR). Typical values, zero,
# unknown bits and bad pointers; the calls that could harm the guest fail
# before doing anything: kexec_load with 1000 segments (EINVAL),
# kexec_file_load with unknown flags (EINVAL), reboot with a wrong magic
# (EINVAL), finit_module on fd -1, unshare with flags it refuses (EINVAL).
import re

import pytest

from test_listing_syscalls import PRELUDE, run_watched, watch

# dup3, the *at calls, fallocate, mknod, splice, sync_file_range, epoll_ctl,
# fanotify, file handles
FS_SCRIPT = watch('dup3', 'dup3', 'faccessat', 'faccessat2', 'fallocate', 'linkat',
                  'mknod', 'mknodat', 'execveat', 'splice', 'sync_file_range',
                  'epoll_ctl', 'fanotify_init', 'fanotify_mark', 'name_to_handle_at',
                  'open_by_handle_at')
FS_PY = PRELUDE + r'''import select
open('f.txt', 'w').close()
fd = os.open('f.txt', os.O_RDWR)
s = lambda t: buf(t + b'\0')
x, l1, l2, fifo, c1, d1, s1, r1, b1, none, empty, tmp = bufs = [
    s(n) for n in (b'f.txt', b'l1', b'l2', b'fifo1', b'/nonexistent/c1',
                   b'/nonexistent/d1', b'/nonexistent/s1', b'r1', b'/nonexistent/b1',
                   b'/nonexistent', b'', b'/tmp')]
dash_x = s(b'-x')
argv = buf(L(a(none), a(dash_x), 0))
off = buf(L(0))
ev = buf(struct.pack('=IQ', 1, 7))
bad = 1
sc(292, fd, 10, 0o2000000)                            # dup3 O_CLOEXEC
sc(292, fd, 11, 0)
sc(292, -1, 12, 0o2000000 | 0o4000 | 4)
sc(269, -100, a(x), 4 | 2)                            # faccessat
sc(269, fd, a(x), 0)
sc(269, 7, bad, 1 | 8)
sc(439, -100, a(x), 1, 0x200)                         # faccessat2
sc(439, -100, a(x), 0, 0)
sc(439, 3, a(x), 4, 0x100 | 0x1000)
sc(285, fd, 1, 0, 4096)                               # fallocate
sc(285, fd, 0, 100, 10)
sc(285, fd, 3 | 0x40, 5, 6)
sc(285, -1, 0x10 | 8 | 4, -1, -5)
sc(265, -100, a(x), -100, a(l1), 0)                   # linkat
sc(265, fd, a(x), -100, a(l2), 0x400)
sc(265, -100, bad, 5, bad, 0x1000 | 0x8000)
sc(133, a(fifo), 0o10644, 0)                          # mknod
sc(133, a(c1), 0o20600, 0x103)
sc(133, a(d1), 0o40755, 0)
sc(133, bad, 0, 7)
sc(259, -100, a(s1), 0o140755, 0)                     # mknodat
sc(259, fd, a(r1), 0o100000, 5)
sc(259, -100, bad, 0o170000 | 0o7777, 0)
sc(259, -100, a(b1), 0o60640, 0x801)
sc(322, -100, a(none), a(argv), 0, 0)                 # execveat (all fail)
sc(322, fd, a(empty), 0, 0, 0x1000)
sc(322, 5, bad, 0, 0, 0x100 | 0x2)
r, w = os.pipe()
sc(275, -1, 0, -1, 0, 10, 1 | 4)                      # splice
sc(275, fd, a(off), w, 0, 5, 0)
sc(275, 0, 0, 0, 0, 0, 0x10 | 8 | 2)
sc(277, fd, 0, 100, 2)                                # sync_file_range
sc(277, fd, 5, 0, 1 | 4)
sc(277, fd, -1, 3, 0x8 | 1)
ep = select.epoll()
sc(233, ep.fileno(), 1, r, a(ev))                     # epoll_ctl
sc(233, ep.fileno(), 3, r, a(ev))
sc(233, ep.fileno(), 2, r, 0)
sc(233, ep.fileno(), 9, -1, 1)
sc(233, ep.fileno(), 0, -1, 0)
fan = sc(300, 0, 0)                                   # fanotify_init
sc(300, 4 | 1 | 2, 2 | 0o100000)
sc(300, 0xc | 0x40, 0o2000000)
sc(300, 8 | 0x10 | 0x20 | 0x100, 1 | 0o4000)
sc(301, fan, 1 | 8, 0x20 | 0x40000000 | 8, -100, a(tmp))   # fanotify_mark
sc(301, -1, 0, 0, 3, 0)
sc(301, -1, 0x80 | 0x200, 0x8000000 | 4 | 0x100000000, -100, bad)
sc(303, -100, a(x), 0, 0, 0)                          # name_to_handle_at
sc(303, fd, a(empty), 0, 0, 0x1000 | 0x400)
sc(303, -100, bad, 0, 0, 0x100 | 4)
sc(304, -100, 0, 0)                                   # open_by_handle_at
sc(304, fd, bad, 2 | 0o2000000)
sc(304, 5, 0, 0o10000000 | 4)
'''
FS_UPSTREAM = '''dup3(3, 10, O_CLOEXEC)
dup3(3, 11, 0x0)
dup3(-1, 12, O_NONBLOCK|O_CLOEXEC|0x4)
faccessat(AT_FDCWD, "f.txt", R_OK|W_OK)
faccessat(3, "f.txt", F_OK)
faccessat(7, 0x1, X_OK|0x8)
faccessat2(AT_FDCWD, "f.txt", X_OK, AT_EACCESS)
faccessat2(AT_FDCWD, "f.txt", F_OK, 0x0)
faccessat2(3, "f.txt", R_OK, AT_SYMLINK_NOFOLLOW|0x1000)
fallocate(3, FALLOC_FL_KEEP_SIZE, 0x0, 4096)
fallocate(3, 0x0, 0x64, 10)
fallocate(3, FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE|0x40, 0x5, 6)
fallocate(-1, FALLOC_FL_NO_HIDE_STALE|FALLOC_FL_COLLAPSE_RANGE|FALLOC_FL_ZERO_RANGE, 0xffffffffffffffff, 18446744073709551611)
linkat(AT_FDCWD, "f.txt", AT_FDCWD, "l1", 0x0)
linkat(3, "f.txt", AT_FDCWD, "l2", AT_SYMLINK_FOLLOW)
linkat(AT_FDCWD, 0x1, 5, 0x1, AT_EMPTY_PATH|0x8000)
mknod("fifo1", S_IFIFO|0644, 0)
mknod("/nonexistent/c1", S_IFCHR|0600, 259)
mknod("/nonexistent/d1", 040755, 0)
mknod(0x1, 00, 7)
mknodat(AT_FDCWD, "/nonexistent/s1", S_IFSOCK|0755, 0)
mknodat(3, "r1", S_IFREG|00, 5)
mknodat(AT_FDCWD, 0x1, 0177777, 0)
mknodat(AT_FDCWD, "/nonexistent/b1", S_IFBLK|0640, 2049)
execveat(AT_FDCWD, "/nonexistent", ["/nonexistent", "-x"], [], 0x0)
execveat(3, "", [], [], AT_EMPTY_PATH)
execveat(5, 0x1, [], [], AT_SYMLINK_NOFOLLOW|0x2)
splice(-1, 0x0, -1, 0x0, 10, SPLICE_F_MOVE|SPLICE_F_MORE)
splice(3, ADDR, 5, 0x0, 5, 0x0)
splice(0, 0x0, 0, 0x0, 0, SPLICE_F_NONBLOCK|SPLICE_F_GIFT|0x10)
sync_file_range(3, 0, 100, SYNC_FILE_RANGE_WRITE)
sync_file_range(3, 5, 0, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WAIT_AFTER)
sync_file_range(3, -1, 3, SYNC_FILE_RANGE_WAIT_BEFORE|0x8)
epoll_ctl(6, EPOLL_CTL_ADD, 4, ADDR)
epoll_ctl(6, EPOLL_CTL_MOD, 4, ADDR)
epoll_ctl(6, EPOLL_CTL_DEL, 4, 0x0)
epoll_ctl(6, 0x9, -1, 0x1)
epoll_ctl(6, 0x0, -1, 0x0)
fanotify_init(FAN_CLASS_NOTIF, O_RDONLY)
fanotify_init(FAN_CLASS_CONTENT|FAN_CLOEXEC|FAN_NONBLOCK, O_RDWR|O_LARGEFILE)
fanotify_init(0xc|0x40, O_RDONLY|O_CLOEXEC)
fanotify_init(FAN_CLASS_PRE_CONTENT|FAN_UNLIMITED_QUEUE|FAN_UNLIMITED_MARKS|0x100, O_WRONLY|O_NONBLOCK)
fanotify_mark(7, FAN_MARK_ADD|FAN_MARK_ONLYDIR, FAN_CLOSE_WRITE|FAN_OPEN|FAN_ONDIR, AT_FDCWD, "/tmp")
fanotify_mark(-1, 0x0, 0x0, 3, 0x0)
fanotify_mark(-1, FAN_MARK_FLUSH|0x200, FAN_EVENT_ON_CHILD|0x100000004, AT_FDCWD, 0x1)
name_to_handle_at(AT_FDCWD, "f.txt", 0x0, 0x0, 0x0)
name_to_handle_at(3, "", 0x0, 0x0, AT_SYMLINK_FOLLOW|AT_EMPTY_PATH)
name_to_handle_at(AT_FDCWD, 0x1, 0x0, 0x0, AT_SYMLINK_NOFOLLOW|0x4)
open_by_handle_at(AT_FDCWD, 0x0, O_RDONLY)
open_by_handle_at(3, 0x1, O_RDWR|O_CLOEXEC)
open_by_handle_at(5, 0x0, O_RDONLY|O_PATH|0x4)
'''

# module, kexec, perf, bpf, reboot and namespace calls, all failing early
SYS_SCRIPT = watch('finit_module', 'finit_module', 'kexec_file_load', 'kexec_load',
                   'perf_event_open', 'bpf', 'reboot', 'setns', 'unshare')
SYS_PY = PRELUDE + r'''p1, empty, ab = buf(b'p=1\0'), buf(b'\0'), buf(b'ab\0')
bad = 1
sc(313, -1, a(p1), 1)                                 # finit_module
sc(313, -1, bad, 4 | 2)
sc(313, -1, a(empty), 0)
sc(320, -1, -1, 3, a(ab), 0x10 | 2 | 4)               # kexec_file_load: EINVAL
sc(320, -1, -1, 0, 0, 0x8)
sc(246, 0, 1000, 0, 0)                                # kexec_load: EINVAL
sc(246, 0x1000000, 1000, 1, 1 | (62 << 16))
sc(246, 0, 1000, 0, 3 << 16)
sc(246, 0, 1000, 0, 0x8 | 2)
sc(298, 0, 0, -1, -1, 0)                              # perf_event_open
sc(298, 1, -1, 0, -1, 8 | 1)
sc(298, 0, 0, 0, 0, 0x10 | 4)
sc(321, 0, 0, 0)                                      # bpf
sc(321, 5, 0, 0)
sc(321, 0x100, 1, 8)
sc(321, -1, 0, 0)
sc(169, 0xfee1dead, 0, 0x01234567, 0)                 # reboot: bad magic2, EINVAL
sc(169, 0, 672274793, 0x4321fedc, 0)
sc(169, 0x12345678, 85072278, 0, 1)
sc(169, -1, 369367448, 0xdeadbeef, 0)
sc(169, 0xfee1dead, 0xfee1dead, 0x45584543, 0)
sc(169, 537993216, 0, 0xcdef0123, 0)
sc(308, -1, 0)                                        # setns
sc(308, -1, 0x40000000 | 0x4000000)
sc(308, -1, 0x11)
sc(308, -1, 0x2000000 | 0x1000 | 0x80000000 | 0x7f)
sc(308, -1, -1)
sc(272, 0)                                            # unshare: 0, else EINVAL
sc(272, 0x11)
sc(272, 0x80000000 | 0x20000 | 0x40000000)
sc(272, 0x1000 | 0x2000000 | 0x80)
'''
SYS_UPSTREAM = '''finit_module(-1, "p=1", MODULE_INIT_IGNORE_MODVERSIONS)
finit_module(-1, 0x1, MODULE_INIT_IGNORE_VERMAGIC|0x4)
finit_module(-1, "", 0x0)
kexec_file_load(-1, -1, 3, "ab", KEXEC_FILE_ON_CRASH|KEXEC_FILE_NO_INITRAMFS|0x10)
kexec_file_load(-1, -1, 0, 0x0, 0x8)
kexec_load(0x0, 1000, 0x0, KEXEC_ARCH_DEFAULT)
kexec_load(0x1000000, 1000, 0x1, KEXEC_ON_CRASH|KEXEC_ARCH_386|KEXEC_ARCH_X86_64)
kexec_load(0x0, 1000, 0x0, KEXEC_ARCH_386)
kexec_load(0x0, 1000, 0x0, KEXEC_PRESERVE_CONTEXT|0x8)
perf_event_open(0x0, 0, -1, -1, 0x0)
perf_event_open(0x1, -1, 0, -1, PERF_FLAG_FD_NO_GROUP|PERF_FLAG_FD_CLOEXEC)
perf_event_open(0x0, 0, 0, 0, PERF_FLAG_PID_CGROUP|0x10)
bpf(BPF_MAP_CREATE, 0x0, 0)
bpf(BPF_PROG_LOAD, 0x0, 0)
bpf(0x100, 0x1, 8)
bpf(0xffffffffffffffff, 0x0, 0)
reboot(LINUX_REBOOT_MAGIC1, 0x0, LINUX_REBOOT_CMD_RESTART, 0x0)
reboot(0x0, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_POWER_OFF, 0x0)
reboot(0x12345678, LINUX_REBOOT_MAGIC2A, LINUX_REBOOT_CMD_CAD_OFF, 0x1)
reboot(0xffffffff, LINUX_REBOOT_MAGIC2B, 0xdeadbeef, 0x0)
reboot(LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_CMD_KEXEC, 0x0)
reboot(LINUX_REBOOT_MAGIC2C, 0x0, LINUX_REBOOT_CMD_HALT, 0x0)
setns(-1, 0x0)
setns(-1, CLONE_NEWUTS|CLONE_NEWNET)
setns(-1, 0x0|SIGCHLD)
setns(-1, CLONE_IO|0xffffffff02001000|0x7f)
setns(-1, CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_PTRACE|CLONE_VFORK|CLONE_PARENT|CLONE_THREAD|CLONE_NEWNS|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID|CLONE_DETACHED|CLONE_UNTRACED|CLONE_CHILD_SETTID|CLONE_NEWUTS|CLONE_NEWIPC|CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNET|CLONE_IO|0xffffffff02001000|0xff)
unshare(0x0)
unshare(0x0|SIGCHLD)
unshare(CLONE_NEWNS|CLONE_NEWNET|CLONE_IO)
unshare(0x2001000|0x80)
'''

# the decoders called by a script without any syscall probe (the tapset
# brings its own table walkers)
DIRECT_SCRIPT = '''probe begin {
	println(_dup3_flag_str(0x80800), " ", _faccessat2_flags_str(0x300), " ",
		_stp_fallocate_mode_str(0), " ", _mknod_mode_str(020644), " ",
		_sync_file_range_flags_str(7), " ", _opoll_op_str(2))
	println(_fanotify_init_flags_str(0x4), " ", _fanotify_mark_flags_str(0x11), " ",
		_fanotify_mark_mask_str(0x22), " ", _finit_module_flags_str(0))
	println(_kexec_flags_str(0), " ", _kexec_file_load_flags_str(5), " ",
		_perf_event_open_flags_str(8), " ", _bpf_cmd_str(1), " ",
		_reboot_magic_str(0xfee1dead), " ", _reboot_flag_str(0))
	exit()
}
'''
DIRECT_UPSTREAM = '''O_NONBLOCK|O_CLOEXEC AT_SYMLINK_NOFOLLOW|AT_EACCESS 0x0 S_IFCHR|0644 SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER EPOLL_CTL_DEL
FAN_CLASS_CONTENT FAN_MARK_ADD|FAN_MARK_MOUNT FAN_MODIFY|FAN_OPEN 0x0
KEXEC_ARCH_DEFAULT KEXEC_FILE_UNLOAD|KEXEC_FILE_NO_INITRAMFS PERF_FLAG_FD_CLOEXEC BPF_MAP_LOOKUP_ELEM LINUX_REBOOT_MAGIC1 LINUX_REBOOT_CMD_CAD_OFF
'''

RUNS = {'fs': (FS_SCRIPT, FS_PY, FS_UPSTREAM), 'sys': (SYS_SCRIPT, SYS_PY, SYS_UPSTREAM),
        'direct': (DIRECT_SCRIPT, None, DIRECT_UPSTREAM)}


@pytest.fixture(scope='module')
def guest_runs(krel, tools, tmp_path_factory):
    """The scripts built and run in one guest boot: {name: Result}."""
    return run_watched(krel, tmp_path_factory.mktemp('argstr_fs'), {n: r[:2] for n, r in RUNS.items()})


@pytest.mark.parametrize('name', list(RUNS))
def test_argstr_as_upstream(guest_runs, name):
    res = guest_runs[name]
    out = re.sub(r'0x7fff[0-9a-f]{8}', 'ADDR', res.stdout)
    assert (out, res.rc) == (RUNS[name][2], 0)
