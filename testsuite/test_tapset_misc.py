# Tapsets the example scripts use, end to end in the guest: `probe init`,
# stp_pid(), user_mode(), the target set (target_set_pid(),
# target_set_report()), the queue statistics (qs_*, qsq_*), argv and
# argc, @cast_sizeof and @cast_module_sizeof, the prometheus macros and
# probe, cmdline_str(), the proc_mem and memory (vm.*) tapsets, log(),
# assert(), speculation, the monotonic clocks, raise() and printk(). Each case is a script, the command that runs its module and what
# Debian's SystemTap 4.8 printed for it in the same guest (built with a
# System.map of the guest's kallsyms for kprobes, and its runtime patched
# for task_work_cancel_func). The -c commands run the shell scripts of
# SHELL, written next to the modules.
#
# An error raised in a tapset function names the line of its definition
# in the tapset library (4.8's under /usr/share/systemtap/tapset, ours
# under tapsets/): compared as <tapset>.
import re

import pytest

import guest
from conftest import STAPRUN, run_stap

SHELL = {
    # a busy loop in the target, then two children that sleep
    'work.sh': 'i=0\nwhile [ $i -lt 30000 ]; do i=$((i+1)); done\n'
               'sleep 0.1 &\nsleep 0.2\nwait\n',
}

# name -> (script, command, stdout, stderr, rc); the command runs in the
# scratch directory, {run} is staprun, {mod} the module's name
RUN = '{run} {mod}.ko'
CASES = {
    'init_order': (
        'probe begin { println("begin") }\n'
        'probe init { println("init ", stp_pid() == pid()) }\n'
        'probe begin(-5) { println("begin-5") }\n'
        'probe kprobe.function("vfs_read") { printf("%d\\n", user_mode()); exit() }',
        RUN, 'init 1\nbegin-5\nbegin\n0\n', '', 0),
    # the target and its descendants
    'target_set': (
        'global seen\n'
        'probe begin { println(target_set_pid(target()), " ", target_set_pid(stp_pid()), " ",'
        ' stp_pid() == pid(), " ", user_mode()) }\n'
        'probe syscall.nanosleep, syscall.clock_nanosleep {'
        ' if (target_set_pid(pid())) seen[execname()]++ }\n'
        'probe end { foreach (e+ in seen) println(e, " ", seen[e]);'
        ' println(target_set_pid(target())) }',
        "{run} -c 'sh work.sh' {mod}.ko", '1 0 1 0\nsleep 2\n0\n', '', 0),
    # user_mode() in timer.profile samples of the target's busy loop
    'user_mode_profile': (
        'global um\n'
        'probe timer.profile { if (pid() == target()) um[user_mode()] = 1 }\n'
        'probe end { println(um[1]) }',
        "{run} -c 'sh work.sh' {mod}.ko", '1\n', '', 0),
    # the queue statistics, with a clock of the script's own (qs_time())
    'queue_stats': (
        'global t\nfunction qs_time() { return t }\n'
        'probe begin {\n'
        't = 1000; qsq_start("disk"); qsq_start("net")\n'
        't = 1010; qs_wait("disk"); qs_wait("disk")\n'
        't = 1030; qs_run("disk"); qs_wait("net")\n'
        't = 1060; qs_done("disk"); qs_run("disk"); qs_run("net")\n'
        't = 1100; qs_done("disk"); qs_done("disk"); qs_done("net"); qs_run("net")\n'
        't = 2000; qsq_print("disk"); qsq_print("net")\n'
        'println(qsq_utilization("disk", 1000), " ", qsq_blocked("disk", 1000), " ",'
        ' qsq_wait_queue_length("disk", 1000), " ", qsq_service_time("disk", 1000), " ",'
        ' qsq_wait_time("disk", 1000), " ", qsq_throughput("disk", 1000000))\n'
        'qsq_start("disk"); t = 2500\n'
        'println(qsq_utilization("disk", 100), " ", qsq_throughput("disk", 100))\n'
        'println(qsq_service_time("disk", 1)) }\n'
        'probe end { println("end") }',
        RUN,
        'disk: 2000.000 ops/s, 0.070 qlen, 70 await, 35 svctm, 5% wait, 7% util\n'
        'net: 1000.000 ops/s, 0.030 qlen, 70 await, 40 svctm, 3% wait, 4% util\n'
        '70 50 70 35000 70000 2000\n0 0\n',
        "ERROR: division by 0 near operator '/' at <tapset>\n"
        'WARNING: Number of errors: 1, skipped probes: 0\n', 1),
    # argv[] from the arguments (built with "x y"), argv_N and argc set at load
    'argv': (
        'probe begin {\n'
        'printf("%d [%s] [%s] [%s] %d\\n", argc, argv[1], argv[2], argv[3], [33] in argv)\n'
        'foreach (i+ in argv limit 4) printf("%d=%s ", i, argv[i])\n'
        'println(""); exit() }',
        '{run} {mod}.ko argv_3=zz argc=5', '5 [x] [y] [zz] 0\n1=x 2=y 3=zz 4= \n', '', 0),
    # the prometheus file, read while the module runs
    'prometheus': (
        'global a1, a2, a3\n'
        'probe begin { a1["read"] = 3; a1["wr\\"ite"] = 5\n'
        'a2["1", "x"] = 10; a2["2", "y"] = 20; a3["1", "2", "z"] = -7 }\n'
        'function up(x) { return sprintf("<%s>", x) }\n'
        'probe prometheus {\n'
        '@prometheus_dump_array1(a1, "calls", "name")\n'
        '@prometheus_dump_array1_map_unquoted(a1, "ucalls", "name", sprint, up)\n'
        '@prometheus_dump_array2(a2, "two", "pid", "name")\n'
        '@prometheus_dump_array2_map(a2, "two_m", "pid", "name", sprint, up, up)\n'
        '@prometheus_dump_array3(a3, "three", "a", "b", "c")\n'
        '@prometheus_dump_array3_map_unquoted(a3, "three_u", "a", "b", "c", sprint, up, sprint, up)\n'
        '$value .= "# end\\n" }\n'
        'probe timer.s(3) { exit() }',
        '{run} {mod}.ko & sleep 1.5; cat /proc/systemtap/{mod}/__prometheus; wait',
        'calls{name="read"} 3\ncalls{name="wr\\"ite"} 5\n'
        'ucalls{name=<read>} 3\nucalls{name=<wr"ite>} 5\n'
        'two{pid="1",name="x"} 10\ntwo{pid="2",name="y"} 20\n'
        'two_m{pid="<1>",name="<x>"} 10\ntwo_m{pid="<2>",name="<y>"} 20\n'
        'three{a="1",b="2",c="z"} -7\nthree_u{a=<1>,b=2,c=<z>} -7\n# end\n', '', 0),
    # the command line and memory of the target (its -c command is split
    # into words as by a shell: quotes, an empty argument), page sizes
    'cmdline_mem': (
        'probe syscall.exit_group {\n\tif (pid() != target())\n\t\tnext\n\tprintf("[%s] [%s] [%s] [%s] [%s] [%s]\\n", cmdline_str(), cmdline_arg(0), cmdline_arg(1),\n\t       cmdline_arg(3), cmdline_arg(9), cmdline_args(2, -1, ","))\n\tprintf("[%s] [%s]\\n", cmdline_args(1, 2, "|"), cmdline_args(4, 1, "|"))\n\tprintf("%d %d %d %d %d %d\\n", proc_mem_size() > 100, proc_mem_rss() > 10,\n\t       proc_mem_rss() == proc_mem_rss(pid()), proc_mem_shr() <= proc_mem_rss(),\n\t       proc_mem_txt() > 0, proc_mem_data() > 0)\n\tprintf("%d %d %d\\n", proc_mem_size_pid(pid()) == proc_mem_size(), proc_mem_txt(pid()) == proc_mem_txt(), proc_mem_data_pid(pid()) == proc_mem_data())\n\tprintf("%d\\n", strlen(proc_mem_string()) > 40)\n\texit()\n}\nprobe begin {\n\tprintf("%d %d %d %d %d\\n", mem_page_size(), proc_mem_size(2), proc_mem_rss(0), proc_mem_shr(999999), proc_mem_data_pid(-1))\n\tprintf("[%s] [%s]\\n", proc_mem_string(2), pages_to_string(3))\n\tforeach (b+ in bs) printf("[%s]", bytes_to_string(bs[b])); println("")\n\tprintf("[%s] [%s] [%s]\\n", bytes_to_string(1023), bytes_to_string(1024 * 1024 * 1024 * 1024 * 5), bytes_to_string(-5))\n}\nglobal bs[20]\nprobe init {\n\tbs[0] = 0; bs[1] = 1023; bs[2] = 1024; bs[3] = 1536; bs[4] = 10239; bs[5] = 10240; bs[6] = 102400\n\tbs[7] = 1048575; bs[8] = 1048576; bs[9] = 5000000; bs[10] = 123456789; bs[11] = 3000000000\n\tbs[12] = 999999999999; bs[13] = 11111111111111\n}\n',
        "{run} -c \"sh -c 'sleep 0.1' a '' b\" {mod}.ko",
        '4096 0 0 0 0\n[size:     0, rss:     0, shr:     0, txt:     0, data:     0] [12.0K]\n[    0][ 1023][1.00K][1.50K][9.99K][10.0K][ 100K][1023K][1.00M][4.76M][ 117M][2.79G][ 931G][10348G]\n[ 1023] [5120G] [   -5]\n[sh -c sleep 0.1 a "" b] [sh] [-c] [a] [] [sleep 0.1,a,"",b]\n[-c|sleep 0.1] []\n1 1 1 1 1 1\n1 1 1\n1\n', '', 0),
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
}

# stap options of the builds
OPTS = {'raise_printk': ['-g']}

# What 4.8 cannot run without the kernel's DWARF (kernel.function()):
# properties that must hold. The target's page faults: some writes, some
# reads, a return for each, minor ones.
OURS_ONLY = {
    # an offline CPU's clock is an error (4.8's autoconf test of
    # cpu_clock() fails for 6.1: it falls back to the time of day)
    'cpu_clock_offline': (
        'probe begin { try { println(cpu_clock_us(-1)) } catch (e) { println(e) }\n'
        'println(cpu_clock_ns(4096)) }', RUN, 'cpu -1 is not online\n'),
    'pagefault': ('global n, w, minor, major, done\nprobe vm.pagefault { if (pid() == target()) { n++; w += write_access } }\nprobe vm.pagefault.return {\n\tif (pid() != target()) next\n\tdone++\n\tif (vm_fault_contains(fault_type, VM_FAULT_MINOR)) minor++\n\tif (vm_fault_contains(fault_type, VM_FAULT_MAJOR)) major++\n}\nprobe end { println(n > 10, " ", w > 0, " ", w < n, " ", done == n, " ", minor > 0, " ", minor + major <= n) }\n', "{run} -c 'sleep 0.1' {mod}.ko", '1 1 1 1 1 1\n'),
}

OURS_ERR = {
    'cpu_clock_offline': ("ERROR: cpu 4096 is not online near identifier 'cpu_clock_ns' at <tapset>\n"
                          'WARNING: Number of errors: 1, skipped probes: 0\n', 1),
}

# the script's arguments, at build time
ARGS = {'argv': ['x', 'y']}

# the sizes the kernel's headers give (upstream needs the kernel's DWARF)
SIZEOF = ('probe begin { printf("%d %d %d\\n", @cast_module_sizeof("kernel", "struct sembuf"),'
          ' @cast_sizeof("struct list_head"), @cast_sizeof("struct timespec64")); exit() }')

TAPSET_LOCATION = re.compile(r"(/usr/share/systemtap/tapset/|\S*tapsets/)\S+:\d+:\d+")


def untapset(text):
    return TAPSET_LOCATION.sub('<tapset>', text)


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('tapset_misc')
    for name, text in SHELL.items():
        (scratch / name).write_text(text)
    scripts = {n: (c[0], ARGS.get(n, [])) for n, c in CASES.items()}
    scripts['sizeof'] = (SIZEOF, [])
    scripts.update({n: (c[0], []) for n, c in OURS_ONLY.items()})
    for name, (text, args) in scripts.items():
        r = run_stap(OPTS.get(name, []) + ['-p4', '-r', krel, '-m', name, '-e', text] + args,
                     cwd=scratch)
        assert r.returncode == 0, f'{name}: {r.stderr}'
    commands = [c[1].format(run=STAPRUN, mod=n) for n, c in CASES.items()]
    commands.append(RUN.format(run=STAPRUN, mod='sizeof'))
    commands += [c[1].format(run=STAPRUN, mod=n) for n, c in OURS_ONLY.items()]
    batch = guest.run_batch([f'cd {scratch}; {c}' for c in commands],
                            scratch=str(scratch), timeout=60)
    guest.check_kernel_healthy(batch)
    return dict(zip(scripts, batch))


@pytest.mark.parametrize('name', list(CASES))
def test_tapset_misc(run, name):
    _, _, out, err, rc = CASES[name]
    r = run[name]
    assert (r.stdout, untapset(r.stderr), r.rc) == (out, err, rc)


@pytest.mark.parametrize('name', list(OURS_ONLY))
def test_ours_only(run, name):
    r = run[name]
    err, rc = OURS_ERR.get(name, ('', 0))
    assert (r.stdout, untapset(r.stderr), r.rc) == (OURS_ONLY[name][2], err, rc)


def test_sizeof(run):
    r = run['sizeof']
    assert (r.stdout, r.stderr, r.rc) == ('6 16 16\n', '', 0)
