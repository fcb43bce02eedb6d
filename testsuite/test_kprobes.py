# Kernel probes without debuginfo: kprobe.function() and kernel.function()
# (kprobes, kretprobes by symbol name, target variables from the kernel's
# BTF prototypes) and kernel.trace() (tracepoints). Modules are built on the
# host for the guest's kernel and all run in one boot of the test guest;
# the kernel log must stay clean and every module must unload.
import re

import pytest

import guest
from conftest import STAPRUN, run_stap

OPENAT = 'kernel.function("do_sys_openat2")'

SCRIPTS = {
    # a kprobe that `cat` (started after the module) triggers
    'kp_hit': 'global n probe kprobe.function("do_sys_openat2") { n++ } '
              'probe end { if (n > 0) println("hit") }',
    # $return and parameters in a kretprobe: opening a missing file is -ENOENT
    'kp_return': 'global done probe kernel.function("do_sys_openat2").return { '
                 'if ($return == -2 && !done) { done = 1; '
                 'printf("%s ret=%d dfd=%d %s %s\\n", pp(), $return, $dfd, probefunc(), ppfunc()) } } '
                 'probe timer.s(60) { exit() }',
    # entry: $$parms, parameters narrowed to their type (int dfd = AT_FDCWD)
    'kp_parms': 'global done probe kernel.function("do_sys_openat2") { '
                'if ($dfd == -100 && !done) { done = 1; println($$parms); '
                'println(pp(), " ", probefunc(), " ", $filename != 0) } } '
                'probe timer.s(60) { exit() }',
    # a tracepoint with typed arguments, triggered by exec
    'tp_exec': 'global n, ok = 1 probe kernel.trace("sched:sched_process_exec") { n++; '
               'if ($p == 0 || $bprm == 0 || $old_pid <= 0) ok = 0 } '
               'probe end { printf("execs>=3 %d ok %d pp %s\\n", n >= 3, ok, '
               'ppfunc() == "" ? "empty" : "?") }',
    # mass registration: entry and return probes on every vfs_* function
    'kp_vfs': 'global hits probe kernel.function("vfs_*") { hits[probefunc()]++ } '
              'probe kernel.function("vfs_*").return { hits["ret"]++ } '
              'probe end { printf("read %d ret %d\\n", hits["vfs_read"] > 0, '
              'hits["ret"] > 0) }',
    # an entry probe on an ftrace location (the function's __fentry__ call)
    # runs from the runtime's ftrace_ops, with no kprobe of its own: the
    # registers, parameters, probe point and backtrace of a kprobe there
    'kp_ftrace': 'global done probe kernel.function("do_sys_openat2") { '
                 'if ($dfd == -100 && !done) { done = 1; println($$parms); '
                 'println(probefunc(), " ", register("rip") == addr(), " ", '
                 'symdata(addr()), " ", $filename != 0, " ", $how != 0); '
                 'print_backtrace() } } '
                 # and a return probe there (one kretprobe shared by all)
                 'global rdone probe kernel.function("do_sys_openat2").return { '
                 'if ($return == -2 && !rdone) { rdone = 1; printf("ret %d %d %d\\n", '
                 '$return, $dfd, @entry($dfd + 1)) } } probe timer.s(60) { exit() }',
    # more than a thousand kprobes (1302 *_show functions of 6.1), registered
    # in bulk, hit by sysfs reads, then unregistered
    'kp_many': 'global n probe kernel.function("*_show") { n++ } '
               'probe begin { println("begin") } probe timer.ms(700) { exit() } '
               'probe end { println("end ", n > 0) }',
}

# Built with -g, which lifts our blacklist: the kernel itself refuses its
# NOKPROBE and noinstr functions, and the run goes on with 4.8's warning
# (4.8 has no blacklist for kprobe.function; this is what it printed for
# the same scripts, given a System.map).
GURU_SCRIPTS = {
    f'kp_refused_{f}': f'global n probe kprobe.function("{f}") {{ n++ }} '
                       'probe timer.ms(200) { printf("n=%d\\n", n); exit() }'
    for f in ('exc_int3', 'notifier_call_chain')
}
GURU_EXPECTED = {
    f'kp_refused_{f}': ('n=0\n', f'WARNING: probe kprobe.function("{f}") ({f}+0) registration '
                        'error [man warning::pass5] (rc -22)\n')
    for f in ('exc_int3', 'notifier_call_chain')
}

# the __init functions of vfs_* are gone from the running kernel (4.8's
# warning text, one per failed probe, in probe order)
VFS_WARNINGS = ''.join(
    f'WARNING: probe kernel.function("{f}"){k} ({f}+0) registration error '
    f'[man warning::pass5] (rc -22)\n'
    for k in ('.call', '.return') for f in ('vfs_caches_init', 'vfs_caches_init_early'))


def trigger(name):
    """Run module `name`; once its probes are armed (staprun -c), open
    files and exec; the command's end ends the session and runs the end
    probes (a sleep before the command lost the race on a loaded host)."""
    command = 'cat /nonexistent-file 2>/dev/null; /bin/true; /bin/true; /bin/true'
    return (f"{STAPRUN} -c '{command}' {name}.ko > {name}.out 2> {name}.err; "
            f'echo "rc=$?"; cat {name}.out; cat {name}.err >&2')


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('kprobes')
    for name, script in SCRIPTS.items():
        r = run_stap(['-p4', '-r', krel, '-m', name, '-e', script], cwd=scratch)
        assert r.returncode == 0, f'{name}: {r.stderr}'
    for name, script in GURU_SCRIPTS.items():
        r = run_stap(['-p4', '-g', '-r', krel, '-m', name, '-e', script], cwd=scratch)
        assert r.returncode == 0, f'{name}: {r.stderr}'
    commands = [trigger(n) for n in SCRIPTS if n not in ('kp_many', 'kp_ftrace')]
    # while it runs, the kernel's kprobe list (the return probe's kretprobe,
    # disabled, for its return hook) and ftrace's enabled functions
    lists = ('grep -c do_sys_openat2 /sys/kernel/debug/kprobes/list; '
             'grep -c "^do_sys_openat2 " /sys/kernel/tracing/enabled_functions')
    commands.insert(list(SCRIPTS).index('kp_ftrace'),
                    f"{STAPRUN} -c 'cat /nonexistent-file 2>/dev/null; ({lists}) > "
                    "kp_ftrace.lists' kp_ftrace.ko > kp_ftrace.out 2> kp_ftrace.err; "
                    'echo "rc=$?"; cat kp_ftrace.out kp_ftrace.lists; cat kp_ftrace.err >&2')
    # registering 1302 kprobes takes a while under TCG: read sysfs
    # attributes until the module has ended
    commands.insert(list(SCRIPTS).index('kp_many'),
                    f'{STAPRUN} kp_many.ko > kp_many.out 2> kp_many.err & pid=$!; '
                    'while kill -0 $pid 2>/dev/null; do cat /sys/kernel/profiling '
                    '/sys/kernel/kexec_loaded > /dev/null; sleep 0.05; done; '
                    'wait $pid; echo "rc=$?"; cat kp_many.out; cat kp_many.err >&2')
    commands += [f'{STAPRUN} {n}.ko' for n in GURU_SCRIPTS]
    names = list(SCRIPTS) + list(GURU_SCRIPTS)
    # the refused functions: exc_int3 is noinstr (no ftrace call), while
    # notifier_call_chain is an ftrace location in the kprobe blacklist,
    # which the ftrace path must refuse as register_kprobe() does
    commands.append('for f in exc_int3 notifier_call_chain; do echo "$f $(grep -cw $f '
                    '/sys/kernel/tracing/available_filter_functions) $(grep -cw $f '
                    '/sys/kernel/debug/kprobes/blacklist)"; done')
    names.append('refused_premise')
    commands.append('cat /proc/modules | grep -c -E "^(' + '|'.join(names) + ') "; true')
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=120)
    guest.check_kernel_healthy(batch)
    return dict(zip(names + ['lsmod'], batch))


def test_kprobe_hit(run):
    assert (run['kp_hit'].stdout, run['kp_hit'].stderr) == ('rc=0\nhit\n', '')


def test_kretprobe_return_and_params(run):
    assert (run['kp_return'].stdout, run['kp_return'].stderr) == (
        f'rc=0\n{OPENAT}.return ret=-2 dfd=-100 do_sys_openat2 do_sys_openat2\n', '')


def test_entry_parms(run):
    r = run['kp_parms']
    assert r.stderr == ''
    assert re.fullmatch(r'rc=0\ndfd=0xffffff9c filename=0x[0-9a-f]+ how=0x[0-9a-f]+\n'
                        + re.escape(f'{OPENAT}.call do_sys_openat2 1') + '\n', r.stdout)


def test_tracepoint_args(run):
    assert (run['tp_exec'].stdout, run['tp_exec'].stderr) == (
        'rc=0\nexecs>=3 1 ok 1 pp empty\n', '')


def test_wildcard_entry_and_return(run):
    assert (run['kp_vfs'].stdout, run['kp_vfs'].stderr) == ('rc=0\nread 1 ret 1\n',
                                                            VFS_WARNINGS)


def test_thousand_kprobes(run):
    assert (run['kp_many'].stdout, run['kp_many'].stderr) == ('rc=0\nbegin\nend 1\n', '')


@pytest.mark.parametrize('name', sorted(GURU_EXPECTED))
def test_kernel_refuses_as_upstream(run, name):
    assert (run[name].stdout, run[name].stderr) == GURU_EXPECTED[name]


def test_refused_functions_premise(run):
    assert run['refused_premise'].stdout == 'exc_int3 0 1\nnotifier_call_chain 1 1\n'


def test_entry_probe_on_ftrace_location(run):
    r = run['kp_ftrace']
    assert r.stderr == ''
    assert re.fullmatch(
        r'rc=0\ndfd=0xffffff9c filename=0x[0-9a-f]+ how=0x[0-9a-f]+\n'
        r'do_sys_openat2 1 do_sys_openat2\+0x0/0x[0-9a-f]+ \[kernel\] 1 1\n'
        r' 0x[0-9a-f]+ : do_sys_openat2\+0x0/0x[0-9a-f]+ \[kernel\]\n'
        r'( 0x[0-9a-f]+ : \w+\+0x[0-9a-f]+/0x[0-9a-f]+ \[kernel\]\n)*'
        r' 0x[0-9a-f]+ : entry_SYSCALL_64_after_hwframe\+0x[0-9a-f]+/0x[0-9a-f]+ \[kernel\]\n'
        r'ret -2 -100 -99\n1\n1\n', r.stdout), r.stdout


def test_all_modules_unloaded(run):
    assert run['lsmod'].stdout == '0\n'


# ---- pass 2: target variables must exist at every point -------------------

@pytest.mark.parametrize('script,message', [
    (f'probe {OPENAT} {{ println($nosuch) }}',
     "target variable '$nosuch' is not available in kernel.function(\"do_sys_openat2\").call: "
     'no such parameter'),
    ('probe kernel.function("do_sys_open*") { println($return) }',
     "target variable '$return' is not available in kernel.function(\"do_sys_open\").call "
     '(and 1 more of its 2 points): only .return probes have $return'),
    ('probe kprobe.function("do_sys_openat2") { println($dfd) }',
     "target variable '$dfd' is not available in kprobe.function(\"do_sys_openat2\"): "
     'kprobe.function probes have no target variables (no debuginfo)'),
    ('probe begin { println($$parms) }',
     "target variable '$$parms' is not available in begin: it is not a kernel.function "
     'or kernel.trace probe'),
    (f'probe {OPENAT} {{ $dfd = 1 }}',
     "write to target variable not permitted; need stap -g"),
])
def test_target_variable_errors(krel, script, message):
    r = run_stap(['-p2', '-r', krel, '-e', script])
    assert r.returncode != 0
    assert message in r.stderr


def test_target_variables_in_pass2(krel):
    r = run_stap(['-p2', '-r', krel, '-e',
                  'probe kernel.trace("sched:sched_process_exec") { println($old_pid) }'])
    assert r.returncode == 0, r.stderr



def test_sixteen_byte_parameters_take_two_registers(krel):
    # tcp_setsockopt(sk, level, optname, sockptr_t optval, optlen): the
    # 16-byte sockptr_t travels in rcx and r8, so optlen (4 bytes) is the
    # sixth argument register, r9 (the guest test of tcp.setsockopt reads
    # it: test_tapset_net.py)
    r = run_stap(['-p3', '-r', krel, '-e',
                  'probe kernel.function("tcp_setsockopt") { println($optlen) }'])
    assert r.returncode == 0, r.stderr
    assert 'stp_targs_0[] = { { 5, 4, 0 } };' in r.stdout
