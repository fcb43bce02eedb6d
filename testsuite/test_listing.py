# stap -l / -L for every probe family, compared with what Debian's
# SystemTap 4.8 listed for the same points on this host (recorded once with
# `/usr/bin/stap -r BUILD`, BUILD a copy of the 6.1 headers' build directory
# with a System.map made from the guest's /proc/kallsyms, so that
# kprobe.function resolves; syscall_any and nd_syscall come from the
# tapsets). kernel.function -L needs DWARF in 4.8: test_probepoints.py
# checks its documented form. Known differences, not tested here: 4.8's
# kprobe.function also lists the compiler's clones from the symbol table
# (vfs_get_tree.cold, vfs_kern_mount.part.0), which BTF does not name;
# its perf.hw_cache tapset spells one alias 'ndoe'; its kernel.trace
# catalog comes from every trace header shipped (module and other-arch
# tracepoints included); kprobe.module("M").function("P*") is listed
# unexpanded by 4.8 and expanded from the module's BTF here.
import os

import pytest

from conftest import run_stap

# (flag, point, 4.8's stdout, 4.8's exit status)
CASES = [
    ('-l', 'begin',
     'begin\n', 0),
    ('-L', 'begin',
     'begin\n', 0),
    ('-L', 'begin(-5)',
     'begin(-5)\n', 0),
    ('-L', 'end',
     'end\n', 0),
    ('-L', 'error',
     'error\n', 0),
    ('-L', 'never',
     'never\n', 0),
    ('-l', 'begin*',
     'begin\n', 0),
    ('-l', 'e*',
     'end\nerror\n', 0),
    ('-L', 'timer.ms(100)',
     'timer.ms(100)\n', 0),
    ('-L', 'timer.s(1).randomize(1)',
     'timer.s(1).randomize(1)\n', 0),
    ('-L', 'timer.jiffies(5)',
     'timer.jiffies(5)\n', 0),
    ('-L', 'timer.hz(100)',
     'timer.hz(100)\n', 0),
    ('-L', 'timer.profile',
     'timer.profile\n', 0),
    ('-L', 'timer.profile.tick',
     '', 1),
    ('-L', 'timer.profile.freq.hz(100)',
     'timer.profile.freq.hz(100)\n', 0),
    ('-l', 'timer.*',
     'timer.profile\n', 0),
    ('-L', 'perf.type(0).config(0)',
     'perf.type(0).config(0)\n', 0),
    ('-L', 'perf.type(1).config(0).sample(1000)',
     'perf.type(1).config(0).sample(1000)\n', 0),
    ('-L', 'perf.hw.cpu_cycles',
     'perf.hw.cpu_cycles\n', 0),
    ('-L', 'perf.sw.cpu_clock',
     'perf.sw.cpu_clock\n', 0),
    ('-l', 'perf.sw.*',
     'perf.sw.alignment_faults\nperf.sw.context_switches\nperf.sw.cpu_clock\nperf.sw.cpu_migrations\nperf.sw.emulation_faults\nperf.sw.page_faults\nperf.sw.page_faults_maj\nperf.sw.page_faults_min\nperf.sw.task_clock\n', 0),
    ('-l', 'perf.hw.*',
     'perf.hw.branch_instructions\nperf.hw.branch_misses\nperf.hw.bus_cycles\nperf.hw.cache_misses\nperf.hw.cache_references\nperf.hw.cpu_cycles\nperf.hw.instructions\nperf.hw.ref_cpu_cycles\nperf.hw.stalled_cycles_backend\nperf.hw.stalled_cycles_frontend\n', 0),
    ('-l', 'perf.*',
     '', 1),
    ('-L', 'procfs("foo").read',
     'procfs("foo").read\n', 0),
    ('-L', 'procfs.write',
     'procfs.write\n', 0),
    ('-l', 'procfs.*',
     'procfs.read\nprocfs.write\n', 0),
    ('-L', 'input.char',
     'input.char char:string\n', 0),
    ('-L', 'input.*',
     'input.char char:string\ninput.line line:string\n', 0),
    ('-l', 'input.*',
     'input.char\ninput.line\n', 0),
    ('-L', 'kprobe.function("vfs_read")',
     'kprobe.function("vfs_read")\n', 0),
    ('-L', 'kprobe.function("vfs_rea*").return',
     'kprobe.function("vfs_read").return\nkprobe.function("vfs_readlink").return\nkprobe.function("vfs_readv").return\n', 0),
    ('-l', 'kprobe.function("do_sys_open*").call',
     'kprobe.function("do_sys_open").call\nkprobe.function("do_sys_openat2").call\n', 0),
    ('-L', 'kprobe.function("vfs_read").return.maxactive(3)',
     'kprobe.function("vfs_read").return.maxactive(3)\n', 0),
    ('-L', 'kprobe.module("ext4").function("ext4_file_open")',
     'kprobe.module("ext4").function("ext4_file_open")\n', 0),
    ('-L', 'kprobe.statement(0xffffffff81000000).absolute',
     '', 1),
    ('-L', 'kernel.statement(0xffffffff81000000).absolute',
     '', 1),
    ('-L', 'kernel.trace("sched:sched_process_exec")',
     'kernel.trace("sched:sched_process_exec") $p:struct task_struct* $old_pid:pid_t $bprm:struct linux_binprm*\n', 0),
    ('-l', 'kernel.trace("sched:sched_process_*")',
     'kernel.trace("sched:sched_process_exec")\nkernel.trace("sched:sched_process_exit")\nkernel.trace("sched:sched_process_fork")\nkernel.trace("sched:sched_process_free")\nkernel.trace("sched:sched_process_hang")\nkernel.trace("sched:sched_process_wait")\n', 0),
    ('-L', 'nd_syscall.open',
     'nd_syscall.open name:string filename:string filename_unquoted:string flags:long flags_str:string mode:long argstr:string\n', 0),
    ('-L', 'nd_syscall.open.return',
     'nd_syscall.open.return name:string retval:long retstr:string\n', 0),
    ('-L', 'nd_syscall.read',
     'nd_syscall.read name:string fd:long buf_uaddr:long count:long argstr:string\n', 0),
    ('-L', 'nd_syscall.close.return',
     'nd_syscall.close.return name:string retval:long retstr:string\n', 0),
    ('-l', 'nd_syscall.open*',
     'nd_syscall.open\nnd_syscall.open_by_handle_at\nnd_syscall.openat\n', 0),
    ('-L', 'syscall_any',
     'syscall_any __tracepoint_arg_regs:long __tracepoint_arg_id:long syscall_nr:long name:string $regs:struct pt_regs* $id:long int\n', 0),
    ('-L', 'nd_syscall.exit_group',
     'nd_syscall.exit_group name:string status:long argstr:string\n', 0),
    ('-l', 'kprobe.function("nosuch")?',
     '', 1),
    ('-L', 'timer.ms(100),begin',
     'begin\ntimer.ms(100)\n', 0),
    ('-L', 'input.*,procfs.*',
     'input.char char:string\ninput.line line:string\nprocfs.read\nprocfs.write\n', 0),
    ('-L', 'perf.hw_cache.*',
     '', 1),
    ('-L', 'syscall_any.return',
     'syscall_any.return __tracepoint_arg_regs:long __tracepoint_arg_ret:long syscall_nr:long name:string retval:long $regs:struct pt_regs* $ret:long int\n', 0),
    ('-L', 'kernel.trace("raw_syscalls:sys_exit")',
     'kernel.trace("raw_syscalls:sys_exit") $regs:struct pt_regs* $ret:long int\n', 0),
]


@pytest.mark.parametrize('flag,point,stdout,rc', CASES)
def test_listing_as_upstream(krel, flag, point, stdout, rc):
    r = run_stap(['-r', krel, flag, point])
    assert (r.stdout, 1 if r.returncode else 0) == (stdout, rc), r.stderr


# `**` matches across components (within one, or one and more), over the
# aliases of a script's tapset directory: 4.8's -l of the same points
# with the same -I directory.
GLOB_TAPSET = '''probe xx.a = begin {}
probe xx.a.return = end {}
probe xx.b.c.d = begin {}
probe xx.b = begin {}
probe xx.q = xx.b.c.d {}
'''
GLOB_CASES = [
    ('xx.**', 'xx.a\nxx.a.return\nxx.b\nxx.b.c.d\nxx.q\n', 0),
    ('xx**', 'xx.a\nxx.a.return\nxx.b\nxx.b.c.d\nxx.q\n', 0),
    ('x**', 'xx.a\nxx.a.return\nxx.b\nxx.b.c.d\nxx.q\n', 0),
    ('xx.*', 'xx.a\nxx.b\nxx.q\n', 0),
    ('xx.**.return', 'xx.a.return\n', 0),
    ('xx.*.**', 'xx.a.return\nxx.b.c.d\n', 0),
    ('**.d', 'xx.b.c.d\n', 0),
    ('xx.b**', 'xx.b\nxx.b.c.d\n', 0),
    ('xx.b.**', 'xx.b.c.d\n', 0),
    ('nosuch.**', '', 1),
]


@pytest.mark.parametrize('point,stdout,rc', GLOB_CASES)
def test_globstar_as_upstream(krel, tmp_path, point, stdout, rc):
    (tmp_path / 'xx.stp').write_text(GLOB_TAPSET)
    r = run_stap(['-r', krel, '-I', str(tmp_path), '-l', point])
    assert (r.stdout, 1 if r.returncode else 0) == (stdout, rc), r.stderr


@pytest.mark.parametrize('family', ['socket', 'tcp', 'udp', 'vfs', 'scheduler'])
def test_globstar_lists_returns(krel, family):
    # 4.8 lists these only from DWARF; `F.**` is `F.*` and `F.*.*` there
    every = run_stap(['-r', krel, '-l', f'{family}.**'])
    one = run_stap(['-r', krel, '-l', f'{family}.*']).stdout.splitlines()
    two = run_stap(['-r', krel, '-l', f'{family}.*.*']).stdout.splitlines()
    three = run_stap(['-r', krel, '-l', f'{family}.*.*.*']).stdout.splitlines()
    assert every.returncode == 0, every.stderr
    assert every.stdout.splitlines() == sorted(set(one + two + three))
    assert any(x.endswith('.return') for x in two)


def test_release_of_build_tree(krel):
    # -r DIR: the release is the tree's UTS_RELEASE (Debian's
    # include/config/kernel.release holds the upstream version, 6.1.N)
    tree = os.path.realpath(f'/lib/modules/{krel}/build')
    r = run_stap(['-r', tree, '-l', 'kernel.function("vfs_read")'])
    assert (r.returncode, r.stdout, r.stderr) == (0, 'kernel.function("vfs_read")\n', '')
