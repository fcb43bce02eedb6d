# Kernel-side tapsets the example scripts use, end to end in the guest:
# the memory tapset (vm.pagefault, vm.kmalloc ..., vm_fault_contains()),
# log(), assert(), speculation, the monotonic clocks, raise() and
# printk() (guru), irq_handler.* and softirq.*, irqflags_str(),
# pstrace(), @offsetof and @container_of. Each case of CASES is a script,
# the command that runs its module and what Debian's SystemTap 4.8
# printed for it in the same guest (see test_tapset_misc.py); those of
# OURS_ONLY, which 4.8 cannot build here (kernel.function() and @cast
# need the kernel's DWARF), print properties that must hold.
import pytest

from conftest import without_reentrancy
from tapset_cases import RUN, run_cases, untapset

# name -> (script, command, stdout, stderr, rc); the command runs in the
# scratch directory, {run} is staprun, {mod} the module's name
CASES = {
    # VM_FAULT_* kinds; 4.8 says 0 for NOPAGE (0x100) and LOCKED (0x200):
    # it tests them with #ifdef, and 6.1's are enum constants, not macros
    # (4.8 printed '1000' on the fifth line; ours is the kernel's meaning)
    'vm_fault_contains': (
        'probe begin {\n\tfor (v = 0; v < 4; v++)\n\t\tprintf("%d: %d%d%d%d%d%d%d\\n", v, vm_fault_contains(v, VM_FAULT_OOM),\n\t\t       vm_fault_contains(v, VM_FAULT_SIGBUS), vm_fault_contains(v, VM_FAULT_MINOR),\n\t\t       vm_fault_contains(v, VM_FAULT_MAJOR), vm_fault_contains(v, VM_FAULT_NOPAGE),\n\t\t       vm_fault_contains(v, VM_FAULT_LOCKED), vm_fault_contains(v, VM_FAULT_ERROR))\n\tprintf("%d%d%d%d\\n", vm_fault_contains(4, 3), vm_fault_contains(0x100, 4), vm_fault_contains(0x200, 5), vm_fault_contains(0x200, 7))\n\tprintf("%d %d\\n", FAULT_FLAG_WRITE, vm_fault_contains(-1, -1))\n\texit()\n}\n', RUN,
        '0: 0010000\n1: 1000001\n2: 0100001\n3: 1100001\n1110\n1 0\n', '', 0),
    # the slab allocator's tracepoints in the target
    'kmalloc': (
        'global n, ok, names, cs\nprobe vm.kmalloc {\n\tif (pid() != target()) next\n\tn++\n\tok += bytes_alloc >= bytes_req && ptr != 0 && call_site != 0\n\tnames[name] = 1\n\tif (caller_function != "" && gfp_flag_name != "") cs++\n}\nprobe vm.kfree { if (pid() == target() && ptr) names[name] = 1 }\nprobe end { println(n > 0, " ", n == ok, " ", cs == n); foreach (k+ in names) println(k) }\n', "{run} -c 'sleep 0.1' {mod}.ko", '1 1 1\nkfree\nkmalloc\n', '', 0),
    # log, assert, speculation, the monotonic clocks
    'log_assert_spec': (
        'probe begin {\n\tlog("logged"); log("")\n\ta = speculation(); b = speculation()\n\tspeculate(a, "a1\\n"); speculate(b, "b1\\n"); speculate(a, "a2 ")\n\tspeculate(a, "a3\\n"); discard(b); speculate(b, "b2\\n")\n\tcommit(a); commit(b); commit(a); commit(7)\n\tprintln(a, " ", b, " ", speculation())\n\tx = cpu_clock_us(cpu()); y = local_clock_us(); z = cpu_clock_ns(0) / 1000\n\tprintln(x > 0, " ", y >= x, " ", z >= x, " ", cpu_clock_ms(0) >= x / 1000, " ", cpu_clock_s(0) >= 0, " ", local_clock_s() <= local_clock_ms())\n\tprintln(ktime_get_ns() > 0, " ", probing_32bit_app())\n\tassert(1); assert(2 > 1, "not shown")\n\ttry { assert(0) } catch (e) { println("caught ", e) }\n\ttry { assert(1 > 2, "custom message") } catch (e) { println("caught ", e) }\n\tassert(0 == 1, "uncaught")\n\tprintln("not reached")\n}\n', RUN,
        'logged\n\na1\na2 a3\nb2\n1 2 3\n1 1 1 1 1 1\n1 0\n'
        'caught Assertion failed\ncaught custom message\n',
        'ERROR: uncaught\nWARNING: Number of errors: 1, skipped probes: 0\n', 1),
    # raise() (guru) kills the target, whose signal stapio reports;
    # printk() writes to the kernel log
    'raise_printk': (
        'probe syscall.nanosleep, syscall.clock_nanosleep {\n\tif (pid() == target()) { println("raise"); raise(15) }\n}\nprobe begin { printk(6, "stap-printk-test") }\nprobe end { println("end") }\n', "{run} -c 'sleep 5' {mod}.ko; echo rc=$?; dmesg | grep -c stap-printk-test",
        'raise\nend\nrc=1\n1\n', 'WARNING: Child process exited with signal 15 (Terminated)\n', 0),
    # IRQ flag names; pstrace() of the target's child
    'irqflags_pstrace': (
        'probe begin {\n\tprintln(irqflags_str(0x80), " ", irqflags_str(0x2080), " ", irqflags_str(0), " ", irqflags_str(0x10080), " ", irqflags_str(0x1f80), " ", irqflags_str(0x40000))\n}\nprobe syscall.nanosleep, syscall.clock_nanosleep {\n\tif (ppid() == target()) { println(pstrace(task_current()) == sprintf(" sleep(%d) sh(%d)%s", pid(), target(), pstrace(task_parent(task_parent(task_current())))), " [", pstrace(pid2task(1)), "]"); exit() }\n}\n', "{run} -c 'sh -c \"sleep 0.1; true\"' {mod}.ko",
        'IRQF_SHARED IRQF_SHARED|IRQF_ONESHOT 0x0 IRQF_SHARED|IRQF_TIMER '
        'IRQF_SHARED|IRQF_PROBE_SHARED|IRQF_TIMER|IRQF_PERCPU|IRQF_NOBALANCING|IRQF_IRQPOLL '
        '0x40000\n1 []\n', '', 0),

}

OURS_ONLY = {
    # an offline CPU's clock is an error (4.8's autoconf test of
    # cpu_clock() fails for 6.1: it falls back to the time of day)
    'cpu_clock_offline': (
        'probe begin { try { println(cpu_clock_us(-1)) } catch (e) { println(e) }\n'
        'println(cpu_clock_ns(4096)) }', RUN, 'cpu -1 is not online\n',
        "ERROR: cpu 4096 is not online near identifier 'cpu_clock_ns' at <tapset>\n"
        'WARNING: Number of errors: 1, skipped probes: 0\n', 1),
    # the irq tracepoints' aliases; &@cast(p, T, "kernel") is p (4.8 has no
    # default module for @cast outside DWARF probe bodies), @offsetof and
    # @module_container_of
    'irq_softirq': ('global n, x, s\nprobe irq_handler.entry {\n\tif (n++ == 0)\n\t\tprintln(irq >= 0, " ", handler != 0, " ", flags_str != "", " ", kernel_string(dev_name) != "", " ", action != 0)\n}\nprobe irq_handler.exit { if (x++ == 0) println(ret >= 0 && ret <= 3, " ", irq >= 0) }\nprobe softirq.entry, softirq.exit { if (s++ == 0) println(vec_nr < 10, " ", h, vec, action) }\nprobe timer.ms(500) { exit() }\nprobe end {\n\tp = 4096\n\tprintln(&@cast(p, "struct delayed_work", "kernel"), " ", & @module_container_of(p, "kernel", "struct delayed_work", timer), " ", @offsetof("struct delayed_work", timer))\n\tprintln(n > 0, x > 0, s > 0)\n}\n', RUN, '1 000\n1 1 1 1 1\n1 1\n4096 4064 32\n111\n', '', 0),
    'pagefault': ('global n, w, minor, major, done\nprobe vm.pagefault { if (pid() == target()) { n++; w += write_access } }\nprobe vm.pagefault.return {\n\tif (pid() != target()) next\n\tdone++\n\tif (vm_fault_contains(fault_type, VM_FAULT_MINOR)) minor++\n\tif (vm_fault_contains(fault_type, VM_FAULT_MAJOR)) major++\n}\nprobe end { println(n > 10, " ", w > 0, " ", w < n, " ", done == n, " ", minor > 0, " ", minor + major <= n) }\n', "{run} -c 'sleep 0.1' {mod}.ko", '1 1 1 1 1 1\n', '', 0),
}

# stap options of the builds
OPTS = {'raise_printk': ['-g']}


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    return run_cases({**CASES, **OURS_ONLY}, krel, tmp_path_factory.mktemp('tapset_kmisc'),
                     opts=OPTS)


@pytest.mark.parametrize('name', list(CASES) + list(OURS_ONLY))
def test_tapset_kmisc(run, name):
    _, _, out, err, rc = {**CASES, **OURS_ONLY}[name]
    r = run[name]
    assert (r.stdout, untapset(without_reentrancy(r.stderr)), r.rc) == (out, err, rc)
