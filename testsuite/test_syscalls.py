# The syscall tapsets (tapsets/linux/syscalls_*.stp, generated from
# tapsets/gen/syscalls.tbl, syscall_support.stp, syscall_any.stp):
# syscall.NAME / nd_syscall.NAME (.return) and syscall_any on the host
# (elaboration, listing, variables) and in the guest (argstr and retstr of
# real commands). The expected guest lines in syscalls/*.upstream are what
# Debian's SystemTap 4.8 printed for the same script (syscalls/trace.stp,
# syscalls/any.stp; built with -DSTP_NO_OVERLOAD, the TCG guest being slow)
# and commands in the same guest, with ASLR off (setarch -R); stack
# addresses (0x7fffffffXXXX, which move with the environment's size, and
# 4.8's staprun adds two variables to it) are replaced by STK. In 4.8's
# stty run the command's error message cut one line ("stty openat = 3"),
# which is restored in stty.upstream. The guest's root is the host's, and
# each command's dynamic loader maps /etc/ld.so.cache, whose size changes
# whenever a library is installed: the expected lines take this machine's
# size (as_here()).
import os
import re
from pathlib import Path

import guest
from conftest import STAPRUN, REPO, run_stap

HERE = Path(__file__).resolve().parent / 'syscalls'
UPSTREAM_VARS = REPO / 'tapsets' / 'gen' / 'upstream-vars.txt'

# name -> the command run with staprun -c; the script prints the
# syscalls of processes with that name (execname)
COMMANDS = {
    'cat': 'setarch x86_64 -R cat /etc/debian_version /nonexistent',
    'kill': 'setarch x86_64 -R kill -0 1',
    'sleep': 'setarch x86_64 -R sleep 0.1',
    'stty': 'setarch x86_64 -R stty -F /dev/null',
}

# every syscall probe at once, entry and return, printing argstr: loads,
# runs and unloads
ALL = ('probe syscall.* { if (execname() == "cat") printf("%s(%s)\\n", name, argstr) } '
       'probe syscall.*.return { if (execname() == "cat") '
       'printf("%s = %s\\n", name, retstr) }')


def p2_points(point):
    r = run_stap(['-p2', '-r', guest.kernel_release(), '-e',
                  f'global n probe {point} {{ n++ }}'])
    assert r.returncode == 0, r.stderr
    assert r.stderr == ''
    return [line for line in r.stdout.splitlines()
            if line.startswith(('kprobe.', 'kernel.'))]


def test_wildcards_elaborate():
    # one kprobe per entry point the kernel has: __ia32_sys_NAME (a 32-bit
    # task's calls, any int 0x80) and __x64_sys_NAME, as 4.8's
    # "__{ia32,x64}_sys_" prefix; the argument-less calls, whose two entries
    # are one function, only __x64_sys_NAME, or __do_sys_NAME where the BTF
    # knows only that; getdents, pipe, ... take two, epoll_create and
    # signalfd only their epoll_create1 and signalfd4, as 4.8; as 4.8 finds
    # them on 6.1, some from the sys_enter tracepoint and the 32-bit-only
    # ones from their __ia32_compat_sys_ functions; and the socket and ipc
    # calls also on the socketcall and ipc multiplexers, 22 of them on the
    # ia32 ones, sendmsg and recvmsg on __x64_sys_socketcall
    entry = p2_points('syscall.*')
    assert len(entry) == 695
    assert len([p for p in entry if p.startswith('kprobe.function("__ia32_sys_')]) == 319
    tps = sorted(p.split(' = ')[0].split('<- ')[1] for p in entry
                 if p.startswith('kernel.trace("raw_syscalls:sys_enter")'))
    assert tps == ['syscall.' + n for n in ('bdflush', 'clone', 'fadvise64_64', 'ftruncate64',
                                            'lookup_dcookie', 'pwrite32', 'sigaction', 'sysctl')]
    ia32 = [p.split('"')[1] for p in entry if p.startswith('kprobe.function("__ia32_c')]
    assert sorted(set(ia32)) == [
        '__ia32_compat_sys_ipc', '__ia32_compat_sys_old_readdir', '__ia32_compat_sys_rt_sigaction',
        '__ia32_compat_sys_settimeofday', '__ia32_compat_sys_sigaction',
        '__ia32_compat_sys_socketcall', '__ia32_compat_sys_ustat']
    assert (ia32.count('__ia32_compat_sys_socketcall'), ia32.count('__ia32_compat_sys_ipc')) == (17, 5)
    assert len([p for p in entry if p.startswith('kprobe.function("__x64_sys_socketcall")')]) == 2
    assert len([p for p in entry if p.startswith('kprobe.function("sys_ni_syscall")')]) == 1
    assert all(p.startswith(('kprobe.function("__x64_sys_', 'kprobe.function("__do_sys_',
                             'kprobe.function("__ia32_sys_')) for p in entry
               if not p.startswith(('kernel.trace', 'kprobe.function("__ia32_compat',
                                    'kprobe.function("sys_ni_syscall")')))
    assert 'kprobe.function("__x64_sys_openat")? /*  name = __x64_sys_openat*/ ' \
        '/* <- syscall.openat = kprobe.function("__ia32_sys_openat")?, ' \
        'kprobe.function("__x64_sys_openat")? <- syscall.* */' in entry
    ret = p2_points('syscall.*.return')
    # 683 returns, and the entry halves of the @entry() ones (ia32 and x64
    # kprobes, the multiplexers, or the sys_enter tracepoint)
    assert len(ret) == 725
    assert len(p2_points('nd_syscall.*')) == 695
    assert len(p2_points('nd_syscall.*.return')) == 725
    assert p2_points('syscall_any') == [
        'kernel.trace("raw_syscalls:sys_enter") /* <- syscall_any = '
        'kernel.trace("raw_syscalls:sys_enter") <- syscall_any */']
    assert len(p2_points('syscall_any.return')) == 1


def test_listing_matches_upstream_names():
    r = run_stap(['-r', guest.kernel_release(), '-l', 'syscall.*'])
    assert r.returncode == 0, r.stderr
    ours = r.stdout.split()
    upstream = [line.split()[0].replace('nd_syscall.', 'syscall.')
                for line in UPSTREAM_VARS.read_text().splitlines()]
    # the names 4.8 knows that this kernel has (all but the compat_* ones),
    # none it does not know
    assert len(ours) == 348 and set(ours) <= set(upstream)
    assert {'syscall.open', 'syscall.openat', 'syscall.getpid',
            'syscall.mmap2', 'syscall.pread'} <= set(ours)


def test_variables_as_upstream():
    # -L as 4.8 lists nd_syscall.NAME, without its internal variables
    for name in ('open', 'openat', 'read', 'write', 'close', 'kill', 'execve',
                 'wait4', 'futex', 'ioctl', 'nanosleep', 'exit_group', 'mmap2'):
        r = run_stap(['-r', guest.kernel_release(), '-L', f'syscall.{name}'])
        assert r.returncode == 0, r.stderr
        up = next(line for line in UPSTREAM_VARS.read_text().splitlines()
                  if line.startswith(f'nd_syscall.{name} '))
        up = re.sub(r' \$.*| __tracepoint_arg_regs:long| __nr:long', '', up)
        assert r.stdout == up.replace('nd_syscall.', 'syscall.') + '\n'
    # over all of them: the probes whose -L is 4.8's exactly
    r = run_stap(['-r', guest.kernel_release(), '-L', 'syscall.*'])
    ours = set(r.stdout.splitlines())
    same = 0
    for line in UPSTREAM_VARS.read_text().splitlines():
        up = re.sub(r' \$.*| __tracepoint_arg_\w+:long| __nr:long', '', line)
        same += up.replace('nd_syscall.', 'syscall.') in ours
    assert same >= 236
    r = run_stap(['-r', guest.kernel_release(), '-L', 'syscall.open.return'])
    assert r.stdout == 'syscall.open.return name:string retval:long retstr:string\n'
    r = run_stap(['-r', guest.kernel_release(), '-L', 'syscall_any.return'])
    # as 4.8: the tracepoint arguments the alias reads are listed as locals
    assert r.stdout == ('syscall_any.return __tracepoint_arg_regs:long __tracepoint_arg_ret:long '
                        'syscall_nr:long name:string retval:long '
                        '$regs:struct pt_regs* $ret:long int\n')


# 4.8's run: /etc/ld.so.cache had UP_CACHE_SIZE bytes and was mapped at
# UP_CACHE_ADDR; with ASLR off, every mapping made after it sits below it,
# lower by its size in pages.
UP_CACHE_SIZE = 53339
UP_CACHE_ADDR = 0x7ffff7fb4000
MMAP_LOW = 0x7ff000000000
CACHE_SIZE = re.compile(rf'(mmap2\(0x0, |munmap\(0x[0-9a-f]+, ){UP_CACHE_SIZE}\b')
ADDRESS = re.compile(r'\b0x7ff[0-9a-f]{9}\b|\b1[0-9]{14}\b')


def pages(n):
    return -(-n // 4096) * 4096


def as_here(lines):
    """4.8's lines for this machine's /etc/ld.so.cache: its size where the
    loader maps and unmaps it, and the addresses of the mappings at and
    below it (hex, or decimal in syscall_any's retval) moved by the
    difference in pages."""
    size = os.stat('/etc/ld.so.cache').st_size
    shift = pages(UP_CACHE_SIZE) - pages(size)

    def moved(m):
        v = int(m.group(0), 0)
        if not MMAP_LOW <= v <= UP_CACHE_ADDR:
            return m.group(0)
        return hex(v + shift) if m.group(0).startswith('0x') else str(v + shift)
    return [ADDRESS.sub(moved, CACHE_SIZE.sub(rf'\g<1>{size}', line)) for line in lines]


def normalize(text, prefix):
    lines = [re.sub(r'0x7fffffff[0-9a-f]{4}', 'STK', line)
             for line in text.splitlines() if line.startswith(prefix)]
    return [line for line in lines if 'set_tid_address = ' not in line]


def test_guest_argstr_as_upstream(krel, tmp_path):
    for name, path in (('trace', HERE / 'trace.stp'), ('any', HERE / 'any.stp')):
        r = run_stap(['-p4', '-r', krel, '-m', name, str(path)], cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    r = run_stap(['-p4', '-r', krel, '-m', 'all', '-e', ALL], cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr
    commands = [f"{STAPRUN} -c '{c}' trace.ko" for c in COMMANDS.values()]
    commands.append(f"{STAPRUN} -c 'setarch x86_64 -R true' any.ko")
    commands.append(f"{STAPRUN} -c '{COMMANDS['cat']}' all.ko")
    batch = guest.run_batch(commands, scratch=str(tmp_path), timeout=120)
    guest.check_kernel_healthy(batch)
    res = dict(zip(list(COMMANDS) + ['any', 'all'], batch))

    for name in COMMANDS:
        expected = as_here((HERE / f'{name}.upstream').read_text().splitlines())
        assert normalize(res[name].stdout, name + ' ') == expected, name
    # the 4.8 quirks kept: a string 4.8 cannot read whole (it checks the
    # full 511 bytes, and argv strings sit near the top of the stack)
    # shows its address; a timespec is read as two 32-bit fields
    assert 'cat openat(AT_FDCWD, STK, O_RDONLY)' in normalize(res['cat'].stdout, 'cat ')
    assert 'kill kill(1, SIG_0)' in normalize(res['kill'].stdout, 'kill ')
    assert res['cat'].stderr.endswith('WARNING: Child process exited with status 1\n')

    # syscall_any: from the exec of `true` on, as 4.8 printed it
    lines = res['any'].stdout.splitlines()
    start = len(lines) - 1 - lines[::-1].index('anyret 59 execve 0')
    got = [re.sub(r'(set_tid_address) \d+$', r'\1 PID', line)
           for line in lines[start:] if line.startswith('any')]
    assert got == as_here((HERE / 'any.upstream').read_text().splitlines())

    # all of syscall.* and syscall.*.return at once
    out = res['all'].stdout.splitlines()
    assert 'openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC)' in out
    assert 'fadvise64(3, 0, 0, POSIX_FADV_SEQUENTIAL)' in out
    assert 'write(1, "12.11\\n", 6)' in out
    assert 'openat = -2 (ENOENT)' in out
    assert out[-1] == 'exit_group(1)'
