# The runtime compiles only the probe families a module uses: pass 3
# defines STP_HAVE_<FAMILY> for the kinds of its probe table, and each
# family's module builds (pass 4) with every other family left out, as do
# the runtime services (stacks, regex, statistics, sorted maps) on their own.
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import STAP, run_stap

PROG = STAP
FAMILIES = {
    'timer': ('probe timer.s(1) { println(1) }', ['TIMERS']),
    'kprobe': ('probe kprobe.function("vfs_read") { println(pid()) }', ['KPROBES']),
    'kretprobe': ('probe kernel.function("vfs_read").return { println($return) }',
                  ['KPROBES']),
    'uprobe': (f'probe process("{PROG}").function("main") {{ println(register("rdi")) }}',
               ['UPROBES']),
    'uretprobe': (f'probe process("{PROG}").function("main").return {{ println(returnval()) }}',
                  ['UPROBES']),
    'process': ('probe process.begin { println(pid()) }', ['UPROC']),
    'syscall': (f'probe process("{PROG}").syscall {{ println($syscall) }}', ['UPROC']),
    'tracepoint': ('probe kernel.trace("sched:sched_switch") { println(1) }', ['TRACEPOINTS']),
    'perf': ('probe perf.sw.cpu_clock { println(1) }', ['PERF']),
    'procfs_read': ('probe procfs("x").read { $value = "a" }', ['PROCFS']),
    'procfs_write': ('probe procfs("y").write { println($value) }', ['PROCFS']),
    'hwbkpt': ('probe kernel.data("jiffies").write { println(1) }', ['HWBKPT']),
    'all': ('probe kprobe.function("vfs_read"), process.begin, kernel.trace("sched:sched_switch"), '
            f'perf.sw.cpu_clock, procfs("x").read, process("{PROG}").function("main") {{ println(1) }}',
            ['KPROBES', 'UPROBES', 'UPROC', 'TRACEPOINTS', 'PERF', 'PROCFS']),
    'ustack': ('probe timer.s(1) { print_ubacktrace(); println(usymname(uaddr())) }',
               ['TIMERS']),
    'kstack': ('probe timer.s(1) { print_backtrace(); println(symname(addr())) }',
               ['TIMERS']),
    'regex': ('probe begin { println("abc" =~ "b+") }', []),
    'stats': ('global s probe begin { s <<< 1; print(@hist_log(s)); println(@avg(s)) }', []),
    'sorted': ('global m probe begin { m["a"] = 1; foreach (k in m-) println(k) }', []),
}


@pytest.mark.parametrize('name', sorted(FAMILIES))
def test_family_defines(krel, name):
    r = run_stap(['-r', krel, '-p3', '-e', FAMILIES[name][0]])
    assert r.returncode == 0, r.stderr
    have = [ln.split()[1][len('STP_HAVE_'):] for ln in r.stdout.splitlines()
            if ln.startswith('#define STP_HAVE_')]
    assert have == FAMILIES[name][1]


def test_each_family_builds_alone(krel, tmp_path):
    def build(name):
        return name, run_stap(['-r', krel, '-p4', '-m', f'fam_{name}', '-e', FAMILIES[name][0]],
                              cwd=tmp_path, timeout=300)

    with ThreadPoolExecutor(2) as pool:
        failed = {n: r.stderr[-2000:] for n, r in pool.map(build, sorted(FAMILIES))
                  if r.returncode != 0 or not (tmp_path / f'fam_{n}.ko').exists()}
    assert failed == {}
