# The variables and argstr of the calls that used to list otherwise than
# SystemTap 4.8 (test_listing_syscalls.py's KNOWN): bind and connect with
# their uaddr_* parts of the sockaddr, semctl's cmdstr, quotactl by command,
# the siginfo_t of rt_sigqueueinfo, rt_tgsigqueueinfo and rt_sigtimedwait,
# and clone, lookup_dcookie (ENOSYS on 6.1) and fadvise64_64 (no x86_64
# number: never fires), which 4.8 finds through the raw_syscalls
# tracepoints, wait4's status_str and ptrace's .return variables, and the
# 32-bit-only calls (ia32 and compat entries). The
# *_UPSTREAM strings are what 4.8 printed for the same scripts and programs
# in the guest (setarch -R; user stack addresses as ADDR); one guest boot
# runs all the programs.
import re
import subprocess

import pytest

import guest
from conftest import STAPRUN, run_stap
from test_listing_syscalls import PRELUDE

KN_SCRIPT = r'''global on
probe nd_syscall.bind, nd_syscall.connect {
	if (execname() == "python3") {
		on = 1
		printf("%s(%s) af=%s ip=%s port=%s flow=%s scope=%s\n", name, argstr, uaddr_af,
		       uaddr_ip, uaddr_ip_port, uaddr_ipv6_flowinfo, uaddr_ipv6_scope_id)
	}
}
probe nd_syscall.quotactl {
	if (execname() == "python3" && on)
		printf("%s(%s) %s %s|%s\n", name, argstr, cmd_str, special_str, special_str_unquoted)
}
probe nd_syscall.semctl, nd_syscall.rt_sigqueueinfo, nd_syscall.rt_tgsigqueueinfo,
      nd_syscall.rt_sigtimedwait {
	if (execname() == "python3" && on)
		printf("%s(%s)\n", name, argstr)
}
'''
KN_PY = PRELUDE + r'''s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM).fileno()
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).fileno()
su = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).fileno()
sin = struct.pack('<H', 2) + struct.pack('>H', 4242) + bytes([127, 0, 0, 1]) + b'\0' * 8
sin6 = (struct.pack('<H', 10) + struct.pack('>H', 80) + struct.pack('<I', 0x12345)
        + bytes(15) + b'\1' + struct.pack('<I', 7))
sun = struct.pack('<H', 1) + b'/nonexistent/sock\0'
abst = struct.pack('<H', 1) + b'\0abs\1x'
nl = struct.pack('<HHII', 16, 0, 0, 0)
odd = struct.pack('<H', 5) + b'\0' * 14
ll = struct.pack('<HHiHBB', 17, 0x0008, 2, 1, 3, 6) + bytes([1, 2, 3, 4, 5, 6, 0, 0])
long_abs = struct.pack('<H', 1) + b'\0' + b'z' * 124
for call in (49, 42):                                  # bind, connect
    sc(call, s4, a(buf(sin)), 16)
    sc(call, s6, a(buf(sin6)), 28)
    sc(call, s6, a(buf(sin6)), 24)
    sc(call, su, a(buf(sun)), len(sun))
    sc(call, su, a(buf(abst)), len(abst))
    sc(call, s4, a(buf(nl)), 12)
    sc(call, s4, a(buf(odd)), 16)
    sc(call, s4, a(buf(odd)), 1)
    sc(call, s4, a(buf(ll)), 20)
    sc(call, su, a(buf(long_abs)), 127)
    sc(call, s4, a(buf(sin)), 0)
    sc(call, s4, 0, 16)
    sc(call, s4, 1, 16)
    sc(call, s4, a(buf(sin)), -1)
sid = sc(64, 0, 2, 0o600)                              # semget IPC_PRIVATE
sc(66, sid, 1, 12, 0)                                  # semctl GETVAL
sc(66, sid, 0, 0x100 | 2, a(buf(bytes(128))))          # IPC_64|IPC_STAT
sc(66, sid, 0, 99, 0)
sc(66, sid, 0, 0x100 | 99, 5)
sc(66, -1, 0, 16, 0)                                   # SETVAL
sc(66, sid, 0, 0, 0)                                   # IPC_RMID
dev = buf(b'/nonexistent-dev\0')
dq = buf(L(1, 2, 3, 4, 5, 6, 7, 8, 9))
di = buf(L(10, 11) + struct.pack('II', 3, 4))
for cmd, sp, i, ad in [(0x80000700, a(dev), 1000, a(dq)),   # Q_GETQUOTA|USRQUOTA
                       (0x80000801, a(dev), 5, a(dq)),      # Q_SETQUOTA|GRPQUOTA
                       (0x80000802, a(dev), 5, 0),
                       (0x80000500, a(dev), 0, a(di)),      # Q_GETINFO
                       (0x80000600, a(dev), 0, 1),
                       (0x80000200, a(dev), 4, a(buf(b'/q/aquota.user\0'))),   # Q_QUOTAON
                       (0x80000201, a(dev), 9, 0),
                       (0x80000202, a(dev), 2, 1),
                       (0x80000400, a(dev), 0, 0x1234),     # Q_GETFMT
                       (0x80000100, 0, 0, 0),               # Q_SYNC
                       (0x80000300, a(dev), -1, 0x10),      # Q_QUOTAOFF
                       (0x580500, a(dev), 0, 0),          # Q_XGETQSTAT
                       (0x123400, a(dev), 2, 3),
                       (0x80000700, 1, 0, 0)]:
    sc(179, cmd, sp, i, ad)
def si(signo, code, rest=b'', errno=0):
    return buf((struct.pack('iii4x', signo, errno, code) + rest).ljust(128, b'\0'))
infos = [si(10, -1, struct.pack('iI', 77, 1000)),            # SI_QUEUE
         si(12, -2, struct.pack('ii', 0x33, 4)),              # SI_TIMER
         si(10, 0x80, struct.pack('iI', 5, 6)),               # SI_KERNEL
         si(4, 2, struct.pack('Q', 0xdead0)),                 # SIGILL ILL_ILLOPN
         si(4, 99, struct.pack('Q', 0xbeef)),
         si(11, 1, struct.pack('Q', 0x1000)),                 # SIGSEGV
         si(17, 1, struct.pack('iIi', 300, 0, 3)),            # CLD_EXITED
         si(17, 2, struct.pack('iIi', 301, 2, 9)),            # CLD_KILLED
         si(29, 1, struct.pack('q', -5)),                     # POLL_IN
         si(29, 4, struct.pack('q', 6)),
         si(31, 1, struct.pack('QiI', 0x401000, 39, 0xc000003e)),   # SIGSYS
         si(40, 5, struct.pack('iI', 0, 0)),
         si(40, 5, struct.pack('iI', 8, 9)),
         si(-1, -6, struct.pack('iI', 1, 2)),                 # SI_TKILL
         si(5, 3, struct.pack('Q', 0)),                       # SIGTRAP TRAP_BRANCH
         si(7, 4, struct.pack('Q', 0x10)),                    # SIGBUS BUS_MCEERR_AR
         si(8, 9, b'')]                                       # SIGFPE 0x9
for info in infos:
    sc(129, 0x3fffffff, 10, a(info))                   # rt_sigqueueinfo, no such pid
sc(129, 0x3fffffff, 99, 0)
sc(129, 0x3fffffff, -1, 1)
sc(297, 0x3fffffff, 0x3ffffffe, 12, a(infos[0]))       # rt_tgsigqueueinfo
sc(297, 0x3fffffff, 0x3ffffffe, 12, a(infos[6]))
sc(297, 0x3fffffff, 0x3ffffffe, 70, 0)
mask = buf(struct.pack('Q', (1 << 11) | (1 << 9)))
sc(128, a(mask), a(infos[1]), a(buf(L(0, 0))), 8)     # rt_sigtimedwait, no wait
sc(128, a(mask), 0, a(buf(L(0, 500))), 8)
sc(128, 0, 1, 0, 8)
sc(128, a(mask), a(infos[8]), 1, 9)
'''
# 4.8 shows flow info as uaddr_ipv6_scope_id too; its abstract AF_UNIX
# names end with the byte after them (the NUL)
KN_UPSTREAM = r'''bind(3, {AF_INET, 127.0.0.1, 4242}, 16) af=AF_INET ip=127.0.0.1 port=4242 flow= scope=
bind(3, {AF_INET6, 0000:0000:0000:0000:0000:0000:0000:0001, 80}, 28) af=AF_INET6 ip=0000:0000:0000:0000:0000:0000:0000:0001 port=80 flow=74565 scope=74565
bind(3, {unknown sockaddr with sa=10, salen=24}, 24) af={unknown sockaddr with sa=10, salen=24} ip= port= flow= scope=
bind(3, {AF_UNIX, "/nonexistent/sock"}, 20) af=AF_UNIX ip= port= flow= scope=
bind(3, {AF_UNIX, "\000abs\001x\0"}, 8) af=AF_UNIX ip= port= flow= scope=
bind(3, {AF_NETLINK, pid=0, groups=00000000}, 12) af=AF_NETLINK ip= port= flow= scope=
bind(3, {unknown sockaddr with sa=5, salen=16}, 16) af={unknown sockaddr with sa=5, salen=16} ip= port= flow= scope=
bind(3, {unknown sockaddr with salen=1}, 1) af={unknown sockaddr with salen=1} ip= port= flow= scope=
bind(3, {AF_PACKET, proto=8, ind=2, hatype=1, pkttype=3, halen=6, addr=0x60504030201}, 20) af=AF_PACKET ip= port= flow= scope=
bind(3, {AF_UNIX, "\000zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\0"}, 127) af=AF_UNIX ip= port= flow= scope=
bind(3, {unknown sockaddr with salen=0}, 0) af={unknown sockaddr with salen=0} ip= port= flow= scope=
bind(3, NULL, 16) af=NULL ip= port= flow= scope=
bind(3, {...}, 16) af={...} ip= port= flow= scope=
bind(3, {unknown sockaddr with sa=2, salen=128}, -1) af={unknown sockaddr with sa=2, salen=128} ip= port= flow= scope=
connect(3, {AF_INET, 127.0.0.1, 4242}, 16) af=AF_INET ip=127.0.0.1 port=4242 flow= scope=
connect(3, {AF_INET6, 0000:0000:0000:0000:0000:0000:0000:0001, 80}, 28) af=AF_INET6 ip=0000:0000:0000:0000:0000:0000:0000:0001 port=80 flow=74565 scope=74565
connect(3, {unknown sockaddr with sa=10, salen=24}, 24) af={unknown sockaddr with sa=10, salen=24} ip= port= flow= scope=
connect(3, {AF_UNIX, "/nonexistent/sock"}, 20) af=AF_UNIX ip= port= flow= scope=
connect(3, {AF_UNIX, "\000abs\001x\0"}, 8) af=AF_UNIX ip= port= flow= scope=
connect(3, {AF_NETLINK, pid=0, groups=00000000}, 12) af=AF_NETLINK ip= port= flow= scope=
connect(3, {unknown sockaddr with sa=5, salen=16}, 16) af={unknown sockaddr with sa=5, salen=16} ip= port= flow= scope=
connect(3, {unknown sockaddr with salen=1}, 1) af={unknown sockaddr with salen=1} ip= port= flow= scope=
connect(3, {AF_PACKET, proto=8, ind=2, hatype=1, pkttype=3, halen=6, addr=0x60504030201}, 20) af=AF_PACKET ip= port= flow= scope=
connect(3, {AF_UNIX, "\000zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\0"}, 127) af=AF_UNIX ip= port= flow= scope=
connect(3, {unknown sockaddr with salen=0}, 0) af={unknown sockaddr with salen=0} ip= port= flow= scope=
connect(3, NULL, 16) af=NULL ip= port= flow= scope=
connect(3, {...}, 16) af={...} ip= port= flow= scope=
connect(3, {unknown sockaddr with sa=2, salen=128}, 4294967295) af={unknown sockaddr with sa=2, salen=128} ip= port= flow= scope=
semctl(0, 1, GETVAL, 0x0)
semctl(0, 0, IPC_64|IPC_STAT, ADDR)
semctl(0, 0, 0x63, 0x0)
semctl(0, 0, IPC_64|0x63, 0x5)
semctl(-1, 0, SETVAL, 0x0)
semctl(0, 0, IPC_RMID, 0x0)
quotactl(Q_GETQUOTA|USRQUOTA, "/nonexistent-dev", 1000, {dqb_bhardlimit=1, dqb_bsoftlimit=2, dqb_curspace=3, dqb_ihardlimit=4, dqb_isoftlimit=5, ...}) Q_GETQUOTA|USRQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_SETQUOTA|GRPQUOTA, "/nonexistent-dev", 5, {dqb_bhardlimit=1, dqb_bsoftlimit=2, dqb_curspace=3, dqb_ihardlimit=4, dqb_isoftlimit=5, ...}) Q_SETQUOTA|GRPQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_SETQUOTA|0x2, "/nonexistent-dev", 5, NULL) Q_SETQUOTA|0x2 "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_GETINFO|USRQUOTA, "/nonexistent-dev", 0, {dqi_bgrace=10, dqi_igrace=11, dqi_flags=3, dqi_valid=4}) Q_GETINFO|USRQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_SETINFO|USRQUOTA, "/nonexistent-dev", 0, 0x1) Q_SETINFO|USRQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_QUOTAON|USRQUOTA, "/nonexistent-dev", QFMT_VFS_V1, "/q/aquota.user") Q_QUOTAON|USRQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_QUOTAON|GRPQUOTA, "/nonexistent-dev", 0x9, 0x0) Q_QUOTAON|GRPQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_QUOTAON|0x2, "/nonexistent-dev", QFMT_VFS_V0, 0x1) Q_QUOTAON|0x2 "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_GETFMT|USRQUOTA, "/nonexistent-dev", 0, 1234) Q_GETFMT|USRQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_SYNC|USRQUOTA, 0x0, 0, 0x0) Q_SYNC|USRQUOTA 0x0|
quotactl(Q_QUOTAOFF|USRQUOTA, "/nonexistent-dev", -1, 0x10) Q_QUOTAOFF|USRQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_XGETQSTAT|USRQUOTA, ADDR, 0, 0x0) Q_XGETQSTAT|USRQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(0x1234|USRQUOTA, ADDR, 2, 0x3) 0x1234|USRQUOTA "/nonexistent-dev"|/nonexistent-dev
quotactl(Q_GETQUOTA|USRQUOTA, 0x1, 0, NULL) Q_GETQUOTA|USRQUOTA 0x1|
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=77, si_uid=1000})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGUSR2, si_code=SI_TIMER, si_tid=0x33, si_overrun=4})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_KERNEL, si_pid=5, si_uid=6})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGILL, si_code=0x2ILL_ILLOPN, si_addr=0xdead0})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGILL, si_code=0x630x63, si_addr=0xbeef})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGSEGV, si_code=0x1SEGV_MAPERR, si_addr=0x1000})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGCHLD, si_code=0x1CLD_EXITED, si_pid=300, si_uid=0, si_status=3})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGCHLD, si_code=0x2CLD_KILLED, si_pid=301, si_uid=2, si_status=SIGKILL})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGIO/SIGPOLL, si_code=0x1POLL_IN, si_band=-5})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGIO/SIGPOLL, si_code=0x4POLL_ERR})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGSYS, si_code=0x1SYS_SECCOMP, si_pid=4198400, si_uid=0})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=0x28, si_code=0x5})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=0x28, si_code=0x5, si_pid=8, si_uid=9})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=0xffffffffffffffff, si_code=SI_TKILL, si_pid=1, si_uid=2})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGTRAP, si_code=0x3TRAP_BRANCH})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGBUS, si_code=0x4BUS_MCEERR_AR, si_addr=0x10})
rt_sigqueueinfo(1073741823, SIGUSR1, {si_signo=SIGFPE, si_code=0x90x9, si_addr=0x0})
rt_sigqueueinfo(1073741823, 0x63, NULL)
rt_sigqueueinfo(1073741823, 0xffffffff, 0x1)
rt_tgsigqueueinfo(1073741823, 1073741822, SIGUSR2, {si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=77, si_uid=1000})
rt_tgsigqueueinfo(1073741823, 1073741822, SIGUSR2, {si_signo=SIGCHLD, si_code=0x1CLD_EXITED, si_pid=300, si_uid=0, si_status=3})
rt_tgsigqueueinfo(1073741823, 1073741822, 0x46, NULL)
rt_sigtimedwait([SIGUSR1|SIGUSR2], {si_signo=SIGUSR2, si_code=SI_TIMER, si_tid=0x33, si_overrun=4}, [0.000000000], 8)
rt_sigtimedwait([SIGUSR1|SIGUSR2], NULL, [0.000000000], 8)
rt_sigtimedwait(NULL, 0x1, NULL, 8)
rt_sigtimedwait([SIGUSR1|SIGUSR2], {si_signo=SIGIO/SIGPOLL, si_code=0x1POLL_IN, si_band=-5}, 0x1, 9)
'''

TP_SCRIPT = r'''probe nd_syscall.clone, nd_syscall.lookup_dcookie, nd_syscall.fadvise64_64 {
	if (execname() == "python3")
		printf("%s(%s)\n", name, argstr)
}
probe nd_syscall.clone.return, nd_syscall.lookup_dcookie.return,
      nd_syscall.fadvise64_64.return {
	if (execname() == "python3" && retval <= 0)
		printf("%s = %s\n", name, retstr)
}
probe nd_syscall.wait4.return {
	if (execname() == "python3")
		printf("%s = %s %s\n", name, retval > 0 ? "PID" : retstr, status_str)
}
probe nd_syscall.ptrace.return {
	if (execname() == "python3")
		printf("%s = %s %d %d\n", name, retstr, geteventmsg_data, arch_prctl_addr)
}
'''
TP_PY = PRELUDE + r'''pid = os.fork()                                        # clone
if pid == 0:
    os._exit(3)
os.waitpid(pid, 0)
sc(56, 0x800 | 0x11, 0x1000, 0, 0, 0)                  # EINVAL: SIGHAND without VM
sc(56, 0x10000 | 0x100000000 | 0x40, 0, 0x10, 0x20, 0)
sc(56, 0x800, 0, 0, 0, 0)
sc(212, 0x123456789, a(buf(bytes(16))), 16)           # lookup_dcookie: ENOSYS
sc(212, -1, 0, 0)
sc(221, 0, 0, 0, 0)                                    # fadvise64
import time
st = ctypes.c_int(0)
def child(code):
    pid = os.fork()
    if pid == 0:
        if code < 0:
            time.sleep(30)
        os._exit(code)
    return pid
pid = child(3)
os.waitpid(pid, 0)                                     # wait4: WEXITSTATUS=3
pid = child(-1)
os.kill(pid, signal.SIGSTOP)
os.waitpid(pid, os.WUNTRACED)                          # WSTOPSIG=SIGSTOP
os.kill(pid, signal.SIGCONT)
os.waitpid(pid, os.WCONTINUED)                         # WIFCONTINUED
sc(61, pid, 0, 1, 0)                                   # WNOHANG: N/A
os.kill(pid, signal.SIGKILL)
sc(61, pid, 0, 0, 0)                                   # NULL status
sc(61, -1, ctypes.addressof(st), 0, 0)                              # ECHILD: N/A
sc(101, 0x4201, 999999, 0, 0)                          # ptrace: ESRCH
'''
TP_UPSTREAM = r'''clone(CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, 0x0, 0x0, ADDR)
clone = 0
wait4 = PID WEXITSTATUS=3
clone(CLONE_SIGHAND|SIGCHLD, 0x1000, 0x0, 0x0)
clone = -22 (EINVAL)
clone(CLONE_THREAD|0x100000000|0x40, 0x0, 0x10, 0x20)
clone = -22 (EINVAL)
clone(CLONE_SIGHAND, 0x0, 0x0, 0x0)
clone = -22 (EINVAL)
lookup_dcookie(0x123456789, ADDR, 0x10)
lookup_dcookie = -38 (ENOSYS)
lookup_dcookie(0xffffffffffffffff, 0x0, 0x0)
lookup_dcookie = -38 (ENOSYS)
clone(CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, 0x0, 0x0, ADDR)
clone = 0
wait4 = PID WEXITSTATUS=3
clone(CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, 0x0, 0x0, ADDR)
clone = 0
wait4 = PID WSTOPSIG=SIGSTOP
wait4 = PID WIFCONTINUED
wait4 = 0 N/A
wait4 = PID NULL
wait4 = -10 (ECHILD) N/A
ptrace = -3 (ESRCH) 0 0
'''


# the 32-bit calls: T32_C, built with gcc -m32 (no libc), makes them from a
# 32-bit process (4.8's compat tasks), C32_PY the x86_64 ones of the same
# names; C32_UPSTREAM is what 4.8 printed (its module built with a System.map
# of the guest's kallsyms, for its __ia32_compat_sys_* kprobes)
T32_C = r'''/* ia32 syscalls from a 32-bit static program, with no libc */
static long sc(long nr, long a, long b, long c, long d, long e)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e) : "memory");
	return r;
}

static char dirbuf[300], ubuf[32], args[48];
static int tv1[2] = { 5, 2000000 }, tz1[2] = { 60, 1 };
static int tv2[2] = { 5, 20 }, tz2[2] = { 2000, 0 };
/* rt: handler, flags, restorer, mask[2]; old: handler, mask, flags, restorer */
static unsigned int act1[5] = { 0x401000, 0x14000104, 0x402000, (1 << 1) | (1 << 14), 1 };
static unsigned int act2[5] = { 1, 0, 0, 0, 0 };
static unsigned int oact[5];
static unsigned int oact1[4] = { 0x1234, (1 << 9) | (1 << 16), 0x10000000, 0x999 };
static const char xs[] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";

void _start(void)
{
	long fd = sc(5, (long)"w.txt", 0102, 0600, 0, 0);	/* open */
	long dfd = sc(5, (long)".", 0200000, 0, 0, 0);

	sc(181, fd, (long)"hello\1", 6, 3, 0);		/* pwrite64 at 3 */
	sc(181, fd, (long)xs, 60, 1, 1);			/* at 1 << 32 | 1 */
	sc(181, -1, 0, 0, 0, 0);
	sc(89, dfd, (long)dirbuf, 1, 0, 0);			/* readdir */
	sc(89, -1, 0, 7, 0, 0);
	sc(62, 0, (long)ubuf, 0, 0, 0);			/* ustat */
	sc(62, 0x801, 1, 0, 0, 0);
	sc(79, (long)tv1, (long)tz1, 0, 0, 0);		/* settimeofday: EINVAL */
	sc(79, (long)tv2, (long)tz2, 0, 0, 0);
	sc(79, 1, 0, 0, 0, 0);
	sc(79, 0, 0, 0, 0, 0);
	sc(134, 2, 0x1234, 0, 0, 0);			/* bdflush */
	sc(134, 3, -5, 0, 0, 0);
	sc(149, (long)args, 0, 0, 0, 0);			/* _sysctl */
	sc(194, fd, 2, 0, 0, 0);				/* ftruncate64 */
	sc(174, 10, (long)act1, 0, 7, 0);			/* rt_sigaction: EINVAL */
	sc(174, 12, (long)act2, (long)oact, 8, 0);
	sc(174, 12, 0, (long)oact, 8, 0);
	sc(174, 12, 1, 0, 8, 0);
	sc(174, 64, (long)act1 + 4, 0, 8, 0);
	sc(67, 10, (long)oact1, 0, 0, 0);			/* sigaction */
	sc(67, 12, (long)act2, (long)oact, 0, 0);
	sc(67, 12, 0, (long)oact, 0, 0);
	sc(67, 99, 1, 0, 0, 0);
	sc(1, 0, 0, 0, 0, 0);				/* exit */
	for (;;)
		;
}
'''
C32_SCRIPT = r'''probe nd_syscall.bdflush, nd_syscall.ftruncate64, nd_syscall.ni_syscall, nd_syscall.pwrite32,
      nd_syscall.readdir, nd_syscall.settimeofday32, nd_syscall.rt_sigaction32, nd_syscall.sigaction32, nd_syscall.sigaction, nd_syscall.sysctl,
      nd_syscall.ustat32 {
	if (execname() == "python3" || execname() == "t32")
		printf("%s: %s(%s)\n", pn(), name, argstr)
}
probe nd_syscall.bdflush.return, nd_syscall.ftruncate64.return, nd_syscall.ni_syscall.return,
      nd_syscall.pwrite32.return, nd_syscall.readdir.return, nd_syscall.rt_sigaction32.return,
      nd_syscall.sigaction32.return, nd_syscall.settimeofday32.return,
      nd_syscall.sigaction.return, nd_syscall.sysctl.return, nd_syscall.ustat32.return {
	if (execname() == "python3" || execname() == "t32")
		printf("%s = %s\n", name, retstr)
}
'''
C32_PY = PRELUDE + r'''sc(156, a(buf(bytes(48))))                             # _sysctl: ENOSYS
sc(156, 0)
sc(212, 0, 0, 0)                                       # lookup_dcookie: ENOSYS
sc(77, -1, 5)                                          # ftruncate
'''
C32_UPSTREAM = r'''nd_syscall.pwrite32: pwrite(3, "hello\001", 6, 3)
pwrite = 6
nd_syscall.pwrite32: pwrite(3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 60, 4294967297)
pwrite = -27 (EFBIG)
nd_syscall.pwrite32: pwrite(-1, 0x0, 0, 0)
pwrite = -9 (EBADF)
nd_syscall.readdir: readdir(4, 0x804b0e0, 1)
readdir = 1
nd_syscall.readdir: readdir(4294967295, 0x0, 7)
readdir = -9 (EBADF)
nd_syscall.ustat32: ustat(0, 0x804b0c0)
ustat = -22 (EINVAL)
nd_syscall.ustat32: ustat(2049, 0x1)
ustat = -22 (EINVAL)
nd_syscall.settimeofday32: settimeofday([5.2000000], [60, 1])
settimeofday = -22 (EINVAL)
nd_syscall.settimeofday32: settimeofday([5.000020], [2000, 0])
settimeofday = -22 (EINVAL)
nd_syscall.settimeofday32: settimeofday(0x1, NULL)
settimeofday = -14 (EFAULT)
nd_syscall.settimeofday32: settimeofday(NULL, NULL)
settimeofday = 0
nd_syscall.sysctl: sysctl(0x804b080)
sysctl = -38 (ENOSYS)
nd_syscall.rt_sigaction32: rt_sigaction(SIGUSR1, {0x401000, SA_RESTART|SA_SIGINFO|SA_RESTORER|0x100, 0x402000, [SIGINT|SIGTERM]}, 0x0, 7)
rt_sigaction = -22 (EINVAL)
nd_syscall.rt_sigaction32: rt_sigaction(SIGUSR2, {SIG_IGN}, 0x804b060, 8)
rt_sigaction = 0
nd_syscall.rt_sigaction32: rt_sigaction(SIGUSR2, {NULL}, 0x804b060, 8)
rt_sigaction = 0
nd_syscall.rt_sigaction32: rt_sigaction(SIGUSR2, {0x1}, 0x0, 8)
rt_sigaction = -14 (EFAULT)
nd_syscall.rt_sigaction32: rt_sigaction(0x40, {0x14000104, 0x402000, 0x4002, [SIGHUP]}, 0x0, 8)
rt_sigaction = 0
nd_syscall.sigaction32: sigaction(SIGUSR1, {0x1234, SA_RESTART, 0x999, [SIGUSR1|SIGCHLD]}, 0x0)
sigaction = 0
nd_syscall.sigaction32: sigaction(SIGUSR2, {SIG_IGN}, 0x804b060)
sigaction = 0
nd_syscall.sigaction32: sigaction(SIGUSR2, {NULL}, 0x804b060)
sigaction = 0
nd_syscall.sigaction32: sigaction(0x63, {0x1}, 0x0)
sigaction = -14 (EFAULT)
nd_syscall.sysctl: sysctl(ADDR)
sysctl = -38 (ENOSYS)
nd_syscall.sysctl: sysctl(0x0)
sysctl = -38 (ENOSYS)
'''


@pytest.fixture(scope='module')
def guest_runs(krel, tools, tmp_path_factory):
    """The scripts built and run in one guest boot: {name: Result}."""
    tmp = tmp_path_factory.mktemp('known')
    runs = {'kn': (KN_SCRIPT, KN_PY), 'tp': (TP_SCRIPT, TP_PY), 'c32': (C32_SCRIPT, C32_PY)}
    (tmp / 't32.c').write_text(T32_C)
    subprocess.run(['gcc', '-m32', '-nostdlib', '-static', '-O1', '-fno-pie', '-no-pie',
                    '-o', 't32', 't32.c'], cwd=tmp, check=True)
    for name, (script, prog) in runs.items():
        (tmp / f'{name}.stp').write_text(script)
        (tmp / f'{name}.py').write_text(prog)
        r = run_stap(['-p4', '-r', krel, '-m', name, f'{name}.stp'], cwd=tmp)
        assert r.returncode == 0, r.stderr
    prog = {n: f'python3 {n}.py' for n in runs}
    prog['c32'] = 'sh -c "./t32; python3 c32.py"'
    batch = guest.run_batch([f"cd {tmp} && {STAPRUN} -c 'setarch x86_64 -R {prog[n]}' {n}.ko"
                             for n in runs], scratch=str(tmp), timeout=180)
    guest.check_kernel_healthy(batch)
    return dict(zip(runs, batch))


@pytest.mark.parametrize('name,expected', [('kn', KN_UPSTREAM), ('tp', TP_UPSTREAM),
                                           ('c32', C32_UPSTREAM)])
def test_argstr_as_upstream(guest_runs, name, expected):
    res = guest_runs[name]
    out = re.sub(r'0x7fff[0-9a-f]{8}', 'ADDR', res.stdout)
    assert (out, res.rc) == (expected, 0)
