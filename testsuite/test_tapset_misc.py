# Tapsets the example scripts use, end to end in the guest: `probe init`,
# stp_pid(), user_mode(), the target set (target_set_pid(),
# target_set_report()), the queue statistics (qs_*, qsq_*), argv and
# argc, @cast_sizeof and @cast_module_sizeof, the prometheus macros and
# probe, the json tapset, cmdline_str() and the proc_mem tapset
# (test_tapset_kmisc.py has the kernel-side ones). Each case is a script, the command that runs its
# module and what Debian's SystemTap 4.8 printed for it in the same guest
# (built with a System.map of the guest's kallsyms for kprobes, and its
# runtime patched for task_work_cancel_func); the -c commands run the
# shell scripts of SHELL, written next to the modules. An error raised in
# a tapset function is compared without its tapset file's location
# (tapset_cases.untapset).
import pytest

from tapset_cases import RUN, run_cases, untapset

SHELL = {
    # a busy loop in the target, then two children that sleep
    'work.sh': 'i=0\nwhile [ $i -lt 30000 ]; do i=$((i+1)); done\n'
               'sleep 0.1 &\nsleep 0.2\nwait\n',
}

# name -> (script, command, stdout, stderr, rc); the command runs in the
# scratch directory, {run} is staprun, {mod} the module's name
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
        'probe timer.s(60) { exit() }',
        "{run} -c 'cat /proc/systemtap/{mod}/__prometheus' {mod}.ko",
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
    # the JSON metadata and data files, read twice while the module runs
    'json': (
        'global n\nprobe begin {\n\tjson_set_prefix("demo")\n\tjson_add_numeric_metric("count", "number of reads", "reads")\n\tjson_add_string_metric("state", "")\n\tjson_add_array("devs", "per device data")\n\tjson_add_array_numeric_metric("devs", "bytes", "bytes moved", "bytes")\n\tjson_add_array_string_metric("devs", "label", "the label")\n\ttry { json_add_numeric_metric("count", "", "") } catch (e) { println(e) }\n\ttry { json_add_array_string_metric("devs", "label", "") } catch (e) { println(e) }\n}\nprobe json_data {\n\t@json_output_data_start\n\t@json_output_numeric_value("count", ++n)\n\t@json_output_array_numeric_value("devs", "sda", "bytes", 100)\n\t@json_output_array_string_value("devs", "sda", "label", "root")\n\t@json_output_array_numeric_value("devs", "sdb", "bytes", -5)\n\t@json_output_string_value("state", "ok")\n\t@json_output_data_end\n}\nprobe timer.s(60) { exit() }\n',
        # begin's lines reach stdout before the files are read: stapio
        # prints them while the module starts, and the reads wait for
        # the files (no -c: its command could print first)
        '{run} {mod}.ko & P=$!; for i in $(seq 600); do [ -e /proc/systemtap/{mod}/data.json ] && break; sleep 0.1; done; sleep 1; '
        'cat /proc/systemtap/{mod}/metadata.json; cat /proc/systemtap/{mod}/data.json; '
        'cat /proc/systemtap/{mod}/data.json; kill -INT $P; wait',
        'Metric \'count\' already exists\nArray metric \'label\' already exists in array devs\n{\n  "prefix": "demo",\n  "metrics": [\n    {\n      "name": "count",\n      "pointer": "/count",\n      "type": "integer",\n      "description": "number of reads",\n      "units": "reads"\n    },\n    {\n      "name": "state",\n      "pointer": "/state",\n      "type": "string"\n    },\n    {\n      "name": "devs",\n      "pointer": "/devs",\n      "type": "array",\n      "description": "per device data",\n      "index": "/__id",\n      "metrics": [\n        {\n          "name": "bytes",\n          "pointer": "/bytes",\n          "type": "integer",\n          "description": "bytes moved",\n          "units": "bytes"\n        },\n        {\n          "name": "label",\n          "pointer": "/label",\n          "type": "string",\n          "description": "the label"\n        }\n      ]\n    }\n  ]\n}\n{\n  "count": 1,\n  "devs": [\n    {\n      "__id": "sda",\n      "bytes": 100,\n      "label": "root"\n    },\n    {\n      "__id": "sdb",\n      "bytes": -5\n    }\n  ],\n  "state": "ok"\n}\n{\n  "count": 2,\n  "devs": [\n    {\n      "__id": "sda",\n      "bytes": 100,\n      "label": "root"\n    },\n    {\n      "__id": "sdb",\n      "bytes": -5\n    }\n  ],\n  "state": "ok"\n}\n', '', 0),
    'json_twice': (
        'probe begin { json_add_numeric_metric("a", "", "") }\nprobe json_data {\n\t@json_output_data_start\n\t@json_output_numeric_value("a", 1)\n\t@json_output_numeric_value("a", 2)\n\t@json_output_data_end\n}\nprobe timer.s(60) { exit() }\n',
        '{run} {mod}.ko & for i in $(seq 600); do [ -e /proc/systemtap/{mod}/data.json ] && break; sleep 0.1; done; sleep 1; '
        'cat /proc/systemtap/{mod}/data.json; echo rc=$?; wait',
        '{\n  "a": 1rc=0\n', "ERROR: Metric 'a' already output\nWARNING: Number of errors: 1, skipped probes: 0\n", 0),
    # the sizes the kernel's headers give (4.8 needs the kernel's DWARF)
    'sizeof': (
        'probe begin { printf("%d %d %d\\n", @cast_module_sizeof("kernel", "struct sembuf"),'
        ' @cast_module_sizeof("kernel", "struct list_head"),'
        ' @cast_module_sizeof("kernel", "struct timespec64")); exit() }',
        RUN, '6 16 16\n', '', 0),
}

# the script's arguments, at build time
ARGS = {'argv': ['x', 'y']}


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    return run_cases(CASES, krel, tmp_path_factory.mktemp('tapset_misc'),
                     args=ARGS, files=SHELL)


@pytest.mark.parametrize('name', list(CASES))
def test_tapset_misc(run, name):
    _, _, out, err, rc = CASES[name]
    r = run[name]
    assert (r.stdout, untapset(r.stderr), r.rc) == (out, err, rc)


@pytest.mark.parametrize('body,ok', [
    ('probe begin', False), ('probe timer.s(1)', False),
    ('probe kernel.function("vfs_read")', True)])
def test_cast_sizeof_module_default(krel, body, ok):
    # @cast_sizeof names no module: as in 4.8, only a function probe's
    # body gives it one (the probe's), elsewhere the type is not found
    from conftest import run_stap
    r = run_stap(['-p2', '-r', krel, '-e',
                  f'{body} {{ println(@cast_sizeof("struct list_head")) }}'])
    assert r.returncode == (0 if ok else 1), r.stderr
    if not ok:
        assert "error: type definition 'struct list_head' not found in ''" in r.stderr, r.stderr
