# stap --runtime=bpf on this host (BPF as root, no modules): scripts run
# directly, their stdout, stderr and exit status asserted exactly (what our
# module runtime and 4.8 print for the same script); a subset of the
# differential corpus (testsuite/diff/) built with -p4 --runtime=bpf -m NAME
# and run with staprun NAME.bpf.o against 4.8's goldens; constructs the
# BPF backend does not have are pass-3 errors naming them.
#
# Known differences from the module runtime (left out of DIFF_CASES):
# - MAXACTION: a BPF handler counts one action per loop iteration (which
#   also bounds the loop for the verifier), the module runtime one per
#   statement, so a runaway loop stops at another count and names the
#   loop's keyword (control/act_*, control/maxaction*).
# - tapset/gettimeofday: 4.8's gettimeofday_ns() / 1000 can be more than 1
#   past its gettimeofday_us() read before it; here all read one clock.
# - recursive functions are a pass-3 error (BPF has no recursion):
#   functions/ackermann, hanoi, maxnesting*, recursion_*.
# - a sorted foreach left early (break, limit): 4.8 has sorted its whole
#   list in place, here the rows not visited keep their old order after the
#   visited ones (arrays/foreach_limit_nested_break, where the module
#   runtime prints 7, 4.8 2 and this 8).
# - print(@hist_*(s)) and print(@hist_*(a[k])): the loader reads the
#   statistic's map when the print's record arrives, so `<<<` later in the
#   same probe (before the loader reads the record) shows in the histogram.
# - $params in a .return uprobe: a return whose entry the entry uprobe did
#   not see (a call in progress when the session started), or nested more
#   than 8 deep in one thread, runs no handler (the module runtime's
#   uretprobe keeps every level).
# - try/catch: MAXACTION is not caught, as in the module runtime, but it
#   is counted per loop iteration (above), so control/act_try_break
#   stops elsewhere.
# - not there yet: wrapping arrays, the tapset functions other than those of
#   bpf_gen.c's builtins[] and bpf_tapfn.c (user_string(), user_string(addr,
#   err_msg), user_string_n(), user_string_quoted(), string_quoted(),
#   substr(), stringat(), strpos(), isinstr(), kernel_string_n(),
#   kernel_long() and the like, ppid(), pexecname(),
#   isdigit(), task_current(), jiffies(), pp(), and bpf_strfn.c's
#   text_str(), text_strn(), tokenize(), str_replace(), strtol(), euid(),
#   egid(), pgrp(), sid(), the ns_*() ids, get_cycles(), ctime(),
#   and bpf_stack.c's backtrace(), print_backtrace(), sprint_backtrace(),
#   callers(), stack(), symname(), symdata(), modname(), user_mode() and
#   addr():
#   tested in test_bpf_probes.py) and the script functions over them.
# - get_cycles() is the monotonic clock in ns (BPF has no cycle counter):
#   tapset/cycles only asserts it does not go back.
# - user stacks (ubacktrace(), ucallers(), ustack(), uaddr(): bpf_ustack.c,
#   tested in test_bpf_probes.py) follow frame pointers (bpf_get_stack())
#   where the module runtime unwinds with .eh_frame: the same frames in
#   code built with frame pointers, not past a function built without them
#   (Debian's libc: the walk stops or goes astray there).
# - the symbolic user functions (print_ubacktrace(), sprint_ubacktrace(),
#   usymname(), usymdata(), umodname(), print_usyms(), print_ustack()...:
#   bpf_usym.c, tested in test_bpf_ustack.py) are named by the loader from
#   /proc/PID/maps, read while the process runs: a process that is gone
#   before the loader reads its maps (one that exits right after the probe
#   fires, before the loader has had the CPU) has its addresses written
#   in the raw form of an address where nothing is mapped. Their strings
#   are markers the loader replaces when it prints them: printed (print,
#   printf with widths, an error, the exit display), joined (.) or through
#   sprintf("%s") they are the module runtime's, but compared, measured
#   (strlen()), cut (substr()) or padded by sprintf() in the script they
#   are the marker, and a marker
#   cut by MAXSTRINGLEN (sprint_ubacktrace() of many frames with a small
#   MAXSTRINGLEN) names fewer frames. The frames are those of the
#   frame-pointer walk (above): with --ldd the module runtime unwinds on
#   through libc where this walk ends.
# - the ns_*() ids are in the loader's namespaces (stapio's in the module
#   runtime); staprun's -N (--target-namespaces) is not there for BPF.
# - a kernel.trace point's backtrace starts at the tracepoint's caller; the
#   module runtime's starts with its own handler's frames (stack_trace_save).
import os
import subprocess
import sys
import time

import pytest

from conftest import STAP, STAPRUN

sys.path.insert(0, os.path.dirname(__file__))
import diffcorpus  # noqa: E402
from test_diff import untapset  # noqa: E402


@pytest.fixture(autouse=True)
def as_root():
    """make check runs as root (README); loading BPF needs it, so running
    these tests as anyone else is a failure, not a skip."""
    assert os.geteuid() == 0, 'test_bpf.py loads BPF programs: run it as root'


def stap(*args, timeout=60):
    r = subprocess.run([str(STAP), '--runtime=bpf', *args], capture_output=True,
                       text=True, timeout=timeout)
    return r.stdout, r.stderr, r.returncode


RUNS = [
    ('hello',
     'probe begin { printf("hello %s %d\\n", "world", 6*7); exit() }',
     'hello world 42\n'),
    ('print_family',
     'probe begin { print(1, "a"); println(2, "b"); printd(",", 3, "c"); '
     'println(""); printdln("-", 4, "d"); print(sprint(5)); println(sprintln(6)); '
     'println(sprintd(":", 7, "e")); exit() }',
     '1a2b\n3,c\n4-d\n56\n\n7:e\n'),
    ('printf_specs',
     'probe begin { printf("[%5d|%-5d|%05d|%+d|% d|%x|%X|%#x|%#o|%u|%c|%5s|%-5s|%.2s|%*d|%%]\\n", '
     '42, 42, 42, 42, 42, 255, 255, 255, 8, -1, 65, "ab", "ab", "abc", 4, 7); exit() }',
     '[   42|42   |00042|+42| 42|ff|FF|0xff|010|18446744073709551615|A|   ab|ab   |ab|   7|%]\n'),
    ('sprintf_specs',
     'probe begin { s = sprintf("[%5d|%-5d|%05d|%+d|%x|%#X|%c|%5s|%-5s|%.2s|%*d]", '
     '42, 42, 42, 42, 255, 255, 65, "ab", "ab", "abc", 4, -7); println(s); '
     'println(sprintf("%d", -9223372036854775807 - 1)); exit() }',
     '[   42|42   |00042|+42|ff|0XFF|A|   ab|ab   |ab|  -7]\n-9223372036854775808\n'),
    ('arith',
     'probe begin { a = 7; b = -3; printf("%d %d %d %d %d %d %d %d %d %d %d\\n", a + b, a - b, '
     'a * b, a / b, a % b, a << 2, -16 >> 2, (a - 23) >>> 60, a & 3, a | 8, a ^ 5); '
     'printf("%d %d %d %d\\n", !a, ~a, -a, a > b ? 1 : 2); exit() }',
     '4 10 -21 -2 1 28 -4 15 3 15 2\n0 -8 -7 1\n'),
    ('strings',
     'probe begin { s = "abc"; t = s . "def"; t .= "!"; '
     'printf("%s %d %d %d %d\\n", t, strlen(t), s < t, s == "abc", s != "abc"); exit() }',
     'abcdef! 7 1 1 0\n'),
    ('control',
     'probe begin { for (i = 0; i < 10; i++) { if (i == 2) continue; if (i == 5) break; '
     'print(i) } n = 0; while (n < 3) n++; println(" ", n, " ", i); exit() }',
     '0134 3 5\n'),
    ('functions',
     'function sq(x) { return x * x } function greet:string (who:string) { '
     'return "hi " . who } function noret() { println("side") } '
     'probe begin { noret(); println(sq(sq(3)), " ", greet("bob")); exit() }',
     'side\n81 hi bob\n'),
    ('logical',
     'global n function f() { n++; return 1 } '
     'probe begin { x = 0 && f(); y = 1 || f(); z = 1 && f(); println(x, y, z, n); exit() }',
     '0111\n'),
    ('begin_order_end',
     'probe end { println("end") } probe begin(2) { println("b2") } '
     'probe begin(-1) { println("b-1") } probe begin { println("b0"); exit() }',
     'b-1\nb0\nend\n'),  # no begin probe runs after exit(), as in 4.8
    ('global_display',
     'global n, s, r, never_written probe begin { n = 42; s = "str"; r = 1; exit() } '
     'probe end { if (never_written) println(r) }',
     'n=42\ns="str"\n'),
    ('global_init',
     'global n = 5, s = "x" probe begin { printf("%d %s\\n", n, s); exit() }',
     '5 x\n'),
    ('exit_runs_rest_of_probe',
     'probe begin { exit(); println("after exit") } probe end { println("end") }',
     'after exit\nend\n'),
    ('context',
     'probe begin { printf("%d %d %d %d\\n", pid() == tid(), cpu() >= 0, execname() != "", '
     'gettimeofday_s() > 1700000000); exit() }',
     '1 1 1 1\n'),
    ('task_current',  # the kernel's task_struct address
     'probe begin { printf("%d\\n", task_current() < -0x100000000000); exit() }',
     '1\n'),
    ('kernel_reads',  # sign-extended reads of the task_struct; faults as deref.c's
     'probe begin { t = task_current(); v = kernel_long(t); '
     'printf("%d %d %d %d\\n", kernel_pointer(t) == v, '
     'kernel_int(t) == ((v & 0xffffffff) ^ 0x80000000) - 0x80000000, '
     'kernel_short(t) == ((v & 0xffff) ^ 0x8000) - 0x8000, '
     'kernel_char(t) == ((v & 0xff) ^ 0x80) - 0x80); '
     'try { println(kernel_int(8)) } catch (m) { println(m) } '
     'try { println(kernel_string_n(16, 3)) } catch (m) { println(m) } '
     'println(kernel_string_n(t, 0), "|", kernel_string_n(t, -1), "|"); exit() }',
     '1 1 1 1\nkernel int copy fault at 0x8 [man error::fault]\n'
     'kernel string copy fault at 0x10 [man error::fault]\n||\n'),
    ('stats',
     'global s, e, d probe begin { for (i = 1; i <= 4; i++) s <<< i * i - 5; '
     'printf("%d %d %d %d %d %d\\n", @count(s), @sum(s), @min(s), @max(s), @avg(s), @count(e)); '
     'd <<< 7; d <<< -2; exit() }',
     '4 10 -4 11 2 0\nd @count=2 @min=-2 @max=7 @sum=5 @avg=2\n'),
    ('timer',
     'global n probe timer.ms(20) { n++; if (n == 3) exit() } '
     'probe end { println("n=", n) }',
     'n=3\n'),
]


@pytest.mark.parametrize('name,script,out', RUNS, ids=[r[0] for r in RUNS])
def test_run(name, script, out):
    assert stap('-e', script) == (out, '', 0)


def test_gettimeofday_wall_clock():
    """gettimeofday_s/ms/us/ns() are the wall clock (CLOCK_REALTIME, as
    the module runtime's): within the host's clock read before and after
    the run (a few seconds' slack), each read after the one before."""
    before = time.time_ns()
    out, err, rc = stap('-e', 'probe begin { printf("%d %d %d %d\\n", gettimeofday_s(), '
                        'gettimeofday_ms(), gettimeofday_us(), gettimeofday_ns()); exit() }')
    after = time.time_ns()
    assert (err, rc) == ('', 0)
    s, ms, us, ns = map(int, out.split())
    slack = 5 * 10**9
    assert before - slack <= ns <= after + slack
    assert (before - slack) // 10**6 <= ms <= (after + slack) // 10**6
    assert s <= ms // 1000 and ms <= us // 1000 and us <= ns // 1000


def test_error_runs_error_probes():
    got = stap('-e', 'probe begin { x = 0; println("before"); println(1 / x); '
               'println("after") } probe error { println("error probe") } '
               'probe end { println("end") }')
    assert got == ('before\nerror probe\n',
                   "ERROR: division by 0 near operator '/' at <input>:1:51\n"
                   'WARNING: Number of errors: 1, skipped probes: 0\n'
                   'Pass 5: run failed.  [man error::pass5]\n', 1)


def test_sigint_runs_end(tmp_path):
    p = subprocess.Popen([str(STAP), '--runtime=bpf', '-e',
                          'global n probe begin { println("up") } '
                          'probe timer.ms(10) { n++ } probe end { println("end ", n > 0) }'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline() == 'up\n'
    time.sleep(0.3)
    p.send_signal(2)
    out, err = p.communicate(timeout=30)
    assert (out, err, p.returncode) == ('end 1\n', '', 0)


def test_tracepoint_btf_args(tmp_path):
    """kernel.trace with its arguments typed from the BTF: $p->pid read
    through the task pointer, as the module runtime does."""
    p = subprocess.Popen([str(STAP), '--runtime=bpf', '-e',
                          'probe begin { println("up") } '
                          'probe kernel.trace("sched_process_exec") { '
                          'if (execname() == "true") { printf("%s %d %d\\n", execname(), '
                          '$p->pid == pid(), $old_pid == tid()); exit() } }'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline() == 'up\n'
    for _ in range(50):
        subprocess.run(['true'])
        if p.poll() is not None:
            break
        time.sleep(0.1)
    out, err = p.communicate(timeout=30)
    assert (out, p.returncode) == ('true 1 1\n', 0)
    assert 'ERROR' not in err


def test_uprobe_function_and_return(tmp_path):
    """process("PATH").function("f") and .return as uprobes."""
    (tmp_path / 'prog.c').write_text(
        'int work(int x) { return x + 1; }\n'
        'int main(int c, char **v) { (void)v; return work(c) - c - 1; }\n')
    subprocess.run(['gcc', '-g', '-O0', '-o', str(tmp_path / 'prog'),
                    str(tmp_path / 'prog.c')], check=True)
    prog = tmp_path / 'prog'
    p = subprocess.Popen([str(STAP), '--runtime=bpf', '-e',
                          'global n probe begin { println("up") } '
                          f'probe process("{prog}").function("work") {{ n++; '
                          'printf("%s %d\\n", execname(), n) } '
                          f'probe process("{prog}").function("work").return {{ '
                          'println("return"); if (n == 2) exit() }'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline() == 'up\n'
    for _ in range(2):
        subprocess.run([str(prog)], check=True)
    out, err = p.communicate(timeout=30)
    assert (out, err, p.returncode) == ('prog 1\nreturn\nprog 2\nreturn\n', '', 0)


def test_command_and_target():
    """-c CMD: started once the probes are in place, target() its pid, the
    session ends when it exits."""
    assert stap('-c', 'echo cmd', '-e', 'probe begin { printf("%d\\n", target() > 0) } '
                'probe end { println("end") }') == ('1\ncmd\nend\n', '', 0)


def test_precompiled_object(tmp_path):
    """-p4 --runtime=bpf -m NAME writes NAME.bpf.o; staprun runs it."""
    r = subprocess.run([str(STAP), '-p4', '--runtime=bpf', '-m', 'hello', '-e',
                        'probe begin { println("hello from bpf"); exit() }'],
                       capture_output=True, text=True, cwd=tmp_path)
    assert (r.stdout, r.stderr, r.returncode) == ('', '', 0)
    r = subprocess.run([str(STAPRUN), 'hello.bpf.o'], capture_output=True, text=True,
                       cwd=tmp_path)
    assert (r.stdout, r.stderr, r.returncode) == ('hello from bpf\n', '', 0)


def test_p3_writes_bpf_c():
    out, err, rc = stap('-p3', '-e', 'probe begin { exit() }')
    assert (err, rc) == ('', 0)
    assert '#include "stapbpf.h"' in out and 'SEC("raw_tp")' in out


def test_not_a_bpf_object(tmp_path):
    bad = tmp_path / 'x.bpf.o'
    bad.write_bytes(b'not an object')
    r = subprocess.run([str(STAPRUN), str(bad)], capture_output=True, text=True)
    assert (r.stdout, r.stderr, r.returncode) == (
        '', f'ERROR: {bad} is not a BPF object built by stap --runtime=bpf\n', 1)


def test_array_rows_and_foreach_orders():
    """Arrays of two keys: insertion order without a sort, stable sorts on
    a key and on the value, limit, in and delete (the module runtime's
    orders: ties keep the order of the array's list)."""
    out = stap('-e', 'global a probe begin { a[2, "b"] = 5; a[1, "c"] = 7; '
               'a[2, "a"] = 5; a[1, "a"] = 1; '
               'foreach ([n, s] in a) printf("%d%s ", n, s); println(""); '
               'foreach ([n, s] in a-) printf("%d%s ", n, s); println(""); '
               'foreach ([n+, s] in a limit 3) printf("%d%s ", n, s); println(""); '
               'delete a[2, "b"]; println([2, "b"] in a, [2, "a"] in a); '
               'foreach (v = [n, s] in a) printf("%d%s=%d ", n, s, v); println(""); exit() }')
    assert out == ('2b 1c 2a 1a \n1c 2b 2a 1a \n1c 1a 2b \n01\n1c=7 1a=1 2a=5 \n', '', 0)


def test_slices():
    """foreach over a slice (sorted, limited, a statistics array), a slice's
    keys evaluated once before the loop, `in` and delete with `*`."""
    out = stap('-e', 'global a, s, n function k() { n++; return 2 } '
               'probe begin { a[1, "x"] = 3; a[2, "y"] = 1; a[2, "x"] = 2; a[3, "x"] = 0; '
               's[2, "x"] <<< 5; s[1, "x"] <<< 7; s[2, "y"] <<< 9; '
               'foreach ([i, t] in a[k(), *]) printf("%d%s ", i, t); println(n); '
               'foreach ([i, t] in a[*, "x"]- limit 2) printf("%d%s ", i, t); println(""); '
               'foreach ([i, t] in s[*, "x"] @sum+) printf("%d%s ", i, t); println(""); '
               'println([*, "y"] in a, [3, *] in a, [4, *] in a, [*, "z"] in s); '
               'delete a[*, "x"]; foreach ([i, t] in a) printf("%d%s ", i, t); println(""); '
               'exit() }')
    assert out == ('2y 2x 1\n1x 2x \n2x 1x \n1100\n2y \n', '', 0)


def test_array_exit_display_string_keys():
    """The exit display of a string-valued array with a key over the
    kernel's 512-byte hash key limit (kept as a hash, printed whole)."""
    out = stap('-e', 'global m probe begin { m[1, "k"] = "x"; m[2, "j"] = "y"; exit() }')
    assert out == ('m[2,"j"]="y"\nm[1,"k"]="x"\n', '', 0)


def test_histograms_scalar():
    """@hist_log and @hist_linear of scalar statistics, laid out by the
    module runtime's own formatting core (runtime/stp_fmt.c)."""
    out = stap('-e', 'global s, t probe begin { for (i = 0; i < 6; i++) { s <<< i; t <<< i * 7 } '
               'print(@hist_log(s)); print(@hist_linear(t, 0, 40, 10)); exit() }')
    assert out == (
        'value |-------------------------------------------------- count\n'
        '    0 |@                                                  1\n'
        '    1 |@                                                  1\n'
        '    2 |@@                                                 2\n'
        '    4 |@@                                                 2\n'
        '    8 |                                                   0\n'
        '   16 |                                                   0\n'
        '\n'
        'value |-------------------------------------------------- count\n'
        '    0 |@@                                                 2\n'
        '   10 |@                                                  1\n'
        '   20 |@@                                                 2\n'
        '   30 |@                                                  1\n'
        '   40 |                                                   0\n'
        '\n', '', 0)


def test_variance_scalar_and_rows():
    """@variance as the module runtime's stat.c: a scalar's parts merged by
    the total-variance formula, an array row's part by part (one part
    here: its running variance); an empty row is caught."""
    out = stap('-e', 'global s, a, b probe begin { for (i = 1; i <= 10; i++) { s <<< i; '
               'a["x", 1] <<< i } b[7] <<< 3; println(@variance(s), " ", '
               '@variance(a["x", 1]), " ", @variance(b[7])); '
               'try { println(@variance(b[8])) } catch (m) { println(m) } exit() }')
    assert out == ('48 31 0\nempty aggregate\n', '', 0)


def test_delete_histogram_and_variance():
    """delete empties a statistic's buckets and running variance too."""
    out = stap('-e', 'global s, v probe begin { s <<< 1; s <<< 70; v <<< 5; v <<< 9; '
               'delete s; delete v; s <<< 3; v <<< 2; print(@hist_log(s)); '
               'println(@count(s), " ", @variance(v), " ", @count(v)); exit() }')
    assert out == ('value |-------------------------------------------------- count\n'
                   '    0 |                                                   0\n'
                   '    1 |                                                   0\n'
                   '    2 |@                                                  1\n'
                   '    4 |                                                   0\n'
                   '    8 |                                                   0\n'
                   '\n1 0 1\n', '', 0)


def test_histogram_of_row_and_buckets():
    out = stap('-e', 'global a probe begin { for (i = 1; i <= 10; i++) a["x", 1] <<< i; '
               'print(@hist_linear(a["x", 1], 0, 10, 5)); '
               'println(@hist_linear(a["x", 1], 0, 10, 5)[1]); '
               'try { println(@hist_linear(a["x", 1], 0, 10, 5)[9]) } catch (m) { println(m) } '
               'exit() }')
    assert out == ('value |-------------------------------------------------- count\n'
                   '    0 |@@@@                                               4\n'
                   '    5 |@@@@@                                              5\n'
                   '   10 |@                                                  1\n'
                   '\n4\nhistogram index out of range\n', '', 0)
    out = stap('-e', 'global a probe begin { a["x", 1] <<< 5; a["x", 1] <<< 20; '
               'foreach (b in @hist_log(a["x", 1])) if (@hist_log(a["x", 1])[b]) '
               'printf("%d:%d ", b, @hist_log(a["x", 1])[b]); println(""); '
               'try { println(@hist_log(a["y", 1])[1]) } catch (m) { println(m) } exit() }')
    assert out == ('67:1 69:1 \nempty aggregate\n', '', 0)


def test_statistics_array_rows():
    out = stap('-e', 'global s probe begin { s["a"] <<< 4; s["b"] <<< 1; s["a"] <<< 8; '
               'foreach (k in s @sum-) printf("%s %d %d %d %d %d\\n", k, @count(s[k]), '
               '@sum(s[k]), @min(s[k]), @max(s[k]), @avg(s[k])); exit() }')
    assert out == ('a 2 12 4 8 6\nb 1 1 1 1 1\n', '', 0)


def test_try_catch_runtime_errors():
    """Errors raised in a try, also in a function it calls and in a foreach
    body, are caught with the message the module runtime's catch sees (no
    place); MAXACTION is not caught; an uncaught one names its place."""
    out = stap('-e', 'global a, n function f(x) { return 10 / x } '
               'probe begin { z = 0; a[1] = 0; a[2] = 5 '
               'try { println(f(z)) } catch (m) { println("1 ", m) } '
               'try { println(kernel_string(z)) } catch (m) { println("2 ", m) } '
               'foreach (k in a) try { println(f(a[k])) } catch (m) { println("3 ", m) } '
               'try { try { error("in") } catch (m) { error("re " . m) } } '
               'catch (m) { println("4 ", m) } '
               'println(kernel_string(8, "dflt")); '
               'try { while (1) n++ } catch { println("not here") } } '
               'probe error { println("error probe ", n > 0) }')
    assert out == ('1 division by 0\n'
                   '2 kernel string copy fault at 0x0 [man error::fault]\n'
                   '3 division by 0\n2\n4 re in\ndflt\nerror probe 1\n',
                   'ERROR: MAXACTION exceeded near keyword at <input>:1:407\n'
                   'WARNING: Number of errors: 1, skipped probes: 0\n'
                   'Pass 5: run failed.  [man error::pass5]\n', 1)


def test_pgrp_sid_euid():
    """pgrp(), sid(), euid() and egid() from the current task (CO-RE reads
    of its signal_struct and cred): begin runs in the loader, which is in
    this test's process group and session, as root."""
    out = stap('-e', 'probe begin { printf("%d %d %d %d\\n", pgrp(), sid(), euid(), egid()) '
               'exit() }')
    assert out == ('%d %d 0 0\n' % (os.getpgrp(), os.getsid(0)), '', 0)


def test_ns_ids():
    """The ns_*() ids are in the loader's namespaces (stapio's in the module
    runtime): the initial ones here, so the plain ids; run in a pid
    namespace of its own, the loader's pid there, and 0 for the process
    group and session, whose leaders are outside it (pid_nr_ns())."""
    script = ('probe begin { printf("%d %d %d %d %d %d %d %d %d\\n", ns_pid() - pid(), '
              'ns_tid() - tid(), ns_ppid() - ppid(), ns_pgrp() - pgrp(), ns_sid() - sid(), '
              'ns_uid() - uid(), ns_euid() - euid(), ns_gid() - gid(), ns_egid() - egid()) '
              'exit() }')
    assert stap('-e', script) == ('0 0 0 0 0 0 0 0 0\n', '', 0)
    r = subprocess.run(['unshare', '--pid', '--fork', '--mount-proc', str(STAP), '--runtime=bpf',
                        '-e', 'probe begin { printf("%d %d %d %d %d\\n", ns_pid() > 1, '
                        'ns_pid() < pid(), ns_tid() == ns_pid(), ns_pgrp(), ns_sid()) exit() }'],
                       capture_output=True, text=True, timeout=60)
    assert (r.stdout, r.stderr, r.returncode) == ('1 1 1 0 0\n', '', 0)


def test_loops_call_functions_and_fail():
    """for/while loops written as a global function per iteration: a
    function called in the body, break, continue, an error raised in the
    body (caught by a try around the loop) and MAXACTION counted as the
    inline loop counts it (one action per iteration)."""
    out = stap('-e', 'global N = 6, a function sq(x) { return x * x } '
               'probe begin { for (i = 0; i < N; i++) { if (i == 1) continue; '
               'if (i == 4) break; a[i] = sq(i); printf("%d ", a[i]) } '
               'j = N; while (j--) { printf("%d,", j) } println(""); '
               'try { k = 0; while (k < N) { k++; if (k == 3) println(10 / (k - 3)) } } '
               'catch (m) { println(k, " ", m) } '
               'n = 0; while (n < 2 * N) n++; println(n); exit() }')
    assert out == ('0 4 9 5,4,3,2,1,0,\n3 division by 0\n12\n', '', 0)
    # four iterations and the last test: five actions
    script = 'global N = %d probe begin { for (i = 0; i < N; i++) ; println(i) exit() }'
    assert stap('-DMAXACTION=5', '-e', script % 4) == ('4\n', '', 0)
    assert stap('-DMAXACTION=5', '-e', script % 5) == (
        '', 'ERROR: MAXACTION exceeded near keyword at <input>:1:28\n'
        'WARNING: Number of errors: 1, skipped probes: 0\n'
        'Pass 5: run failed.  [man error::pass5]\n', 1)


def test_uncaught_fault_and_warn():
    out = stap('-e', 'probe begin { warn("w1"); println(kernel_string(16)) }')
    assert out[0] == '' and out[2] == 1
    assert out[1].startswith('WARNING: w1\nERROR: kernel string copy fault at 0x10 '
                             "[man error::fault] near identifier 'kernel_string' at ")
    assert out[1].endswith('/conversions.stp:8:10\n'
                           'WARNING: Number of errors: 1, skipped probes: 0\n'
                           'Pass 5: run failed.  [man error::pass5]\n')


UNSUPPORTED = [
    ('probe procfs("foo").read { println(1) }',
     'probe point procfs("foo").read is not supported by --runtime=bpf yet'),
    ('probe begin { %{ /* C */ %} }', 'embedded C is not supported by --runtime=bpf'),
    ('probe begin { printf("%b", 1) }',
     'the printf conversion %b is not supported by --runtime=bpf'),
    ('global h% probe begin { h[1] = 1 }',
     'wrapping arrays (%) are not supported by --runtime=bpf yet'),
]


@pytest.mark.parametrize('script,msg', UNSUPPORTED, ids=['procfs', 'embedded', 'printf_b', 'wrap'])
def test_unsupported_is_pass3_error(script, msg):
    out, err, rc = stap('-g', '-p4', '-e', script)
    assert rc == 1 and out == ''
    assert msg in err and 'use the kernel module runtime (--runtime=kernel)' in err
    assert 'Pass 3: translation failed.' in err
    assert 'verifier' not in err


# The diff corpus's cases the BPF runtime runs (integer and string
# scalars, the print family, functions, control flow, errors), compared
# with 4.8's goldens as test_diff.py does.
DIFF_CASES = [
    'control/begin_priority', 'control/block_scopes', 'control/break_continue_for',
    'control/break_continue_while', 'control/error_probe_after_exit',
    'control/exit_from_timer', 'control/exit_in_end', 'control/exit_twice',
    'control/for_forms', 'control/if_chain', 'control/maxaction_empty_for',
    'control/multiple_begin_end', 'control/nested_loops', 'control/next_begin',
    'control/next_in_func_probe', 'control/while_complex_cond',
    'functions/arg_eval_order', 'functions/func_exit', 'functions/global_from_func',
    'functions/locals_fresh', 'functions/many_args', 'functions/no_return_value',
    'functions/overload', 'functions/param_copy', 'functions/return_early',
    'functions/return_void', 'functions/typed_params', 'printf/arg_side_effects',
    'printf/c_basic', 'printf/c_special', 'printf/d_hash', 'printf/d_hash_zero',
    'printf/d_minus', 'printf/d_minus_zero', 'printf/d_none', 'printf/d_plus',
    'printf/d_plus_zero', 'printf/d_prec_zero_value', 'printf/d_space', 'printf/d_zero',
    'printf/dyn_precision', 'printf/dyn_width', 'printf/dyn_width_big',
    'printf/err_in_arg', 'printf/fmt_escapes', 'printf/i_hash_zero', 'printf/i_minus',
    'printf/i_none', 'printf/i_plus', 'printf/i_zero', 'printf/mixed', 'printf/o_hash',
    'printf/o_hash_zero', 'printf/o_minus', 'printf/o_minus_zero', 'printf/o_none',
    'printf/o_plus', 'printf/o_plus_zero', 'printf/o_space', 'printf/o_zero',
    'printf/p_flags', 'printf/p_pointer', 'printf/percent', 'printf/print_vs_printf',
    'printf/printf_long_output', 'printf/printf_many_args', 'printf/printf_no_args',
    'printf/printf_width_long', 'printf/s_basic', 'printf/s_flags', 'printf/s_number',
    'printf/s_truncate_width', 'printf/sprintf_all', 'printf/sprintf_nested',
    'printf/u_hash', 'printf/u_hash_zero', 'printf/u_minus', 'printf/u_minus_zero',
    'printf/u_none', 'printf/u_plus', 'printf/u_plus_zero', 'printf/u_space',
    'printf/u_zero', 'printf/x_hash', 'printf/x_hash_zero', 'printf/x_minus',
    'printf/x_minus_zero', 'printf/x_negative', 'printf/x_none', 'printf/x_plus',
    'printf/x_plus_zero', 'printf/x_space', 'printf/x_zero', 'printf/xx_hash',
    'printf/xx_hash_zero', 'printf/xx_minus', 'printf/xx_minus_zero', 'printf/xx_none',
    'printf/xx_plus', 'printf/xx_plus_zero', 'printf/xx_space', 'printf/xx_zero',
    'probes/conditional_probe', 'probes/end_globals_from_timer', 'probes/end_only_exit',
    'probes/optional_probe', 'probes/timer_ms', 'probes/timer_profile',
    'probes/timer_s', 'probes/timer_two', 'probes/timer_us', 'stats/aggr_all',
    'stats/aggr_neg', 'stats/avg_trunc', 'stats/empty_avg', 'stats/empty_count_sum',
    'stats/empty_max', 'stats/empty_min', 'stats/single_value', 'stats/stat_func',
    'stats/stat_local_expr', 'stats/stats_large', 'strings/compare',
    'strings/compare_nonascii', 'strings/compare_vars', 'strings/concat',
    'strings/concat_num', 'strings/escapes', 'strings/long_to_string',
    'strings/maxlen_func_arg', 'strings/maxlen_global', 'strings/maxlen_print',
    'strings/maxlen_sprintf', 'strings/print_family', 'strings/printdln_mixed',
    'strings/sprint_family', 'strings/sprintf_reuse', 'strings/string_empty',
    'strings/string_func_return', 'strings/string_nul', 'strings/string_quoted',
    'strings/string_ternary', 'strings/substr', 'strings/substr_neg', 'strings/stringat',
    'strings/stringat_neg', 'strings/stringat_oob', 'strings/concat_self',
    'strings/maxlen_literal', 'strings/string_ops_loop', 'strings/isinstr',
    'strings/strpos', 'strings/isdigit', 'probes/begin_pp',
    'probes/probe_alias_list', 'probes/timer_hz', 'probes/timer_pp',
    'strings/strlen', 'tapset/bytes_to_string_alone', 'tapset/cpu_single',
    'tapset/elapsed_timer', 'tapset/execname_begin', 'tapset/execname_end',
    'tapset/gettimeofday_monotonic', 'tapset/jiffies', 'tapset/timer_context',
    'values/add_wrap',
    'values/assign_value', 'values/bit_assign', 'values/bitops', 'values/bits_count',
    'values/chain_assign', 'values/collatz', 'values/compare_num',
    'values/compound_assign', 'values/cond_numbers', 'values/div_const_zero',
    'values/fold_extreme_compare',
    'values/div_minint', 'values/div_trunc', 'values/div_zero',
    'values/div_zero_assign', 'values/div_zero_assign_literal', 'values/div_zero_func',
    'values/div_zero_global', 'values/div_zero_in_end', 'values/eval_order_binary',
    'values/fact_overflow', 'values/gcd', 'values/global_init', 'values/hex_print',
    'values/incdec', 'values/literal_unsigned', 'values/literals', 'values/local_types',
    'values/logical', 'values/long_arith', 'values/mod_sign', 'values/mod_zero',
    'values/mod_zero_assign', 'values/mul_wrap', 'values/neg_mod_div_loop',
    'values/precedence', 'values/primes', 'values/shift_assign', 'values/shift_big',
    'values/shift_fold_range', 'values/shift_left', 'values/shift_neg',
    'values/shift_right', 'values/shortcircuit', 'values/ternary', 'values/unary',
    # for/while loops bounded by globals, each iteration a global function
    # (bpf_gen.c's loop_fn())
    'control/loop_global_bound', 'arrays/local_index_expr',
    # strings, ids and times of bpf_strfn.c
    'strings/text_str', 'strings/text_strn', 'strings/escapes_more', 'strings/tokenize',
    'strings/tokenize_delims', 'arrays/incr_elements', 'strings/str_replace',
    'strings/str_replace_long', 'strings/strtol', 'strings/strtol_base0',
    'strings/str_ctime', 'strings/str_ctime_big', 'tapset/ctime_now', 'tapset/ctime_range',
    'tapset/cycles', 'tapset/ids_root',
    # global arrays, foreach and statistics rows (bpf_maps.c)
    'arrays/array_func_arg',
    'arrays/array_size',
    'arrays/delete_all',
    'arrays/delete_elem',
    'arrays/delete_scalar_local',
    'arrays/exit_display',
    'arrays/exit_display_multi',
    'arrays/foreach_break_continue',
    'arrays/foreach_empty',
    'arrays/foreach_limit',
    'arrays/foreach_limit_zero_elided',
    'arrays/foreach_multi_sort',
    'arrays/foreach_nested',
    'arrays/foreach_sort_many',
    'arrays/foreach_sort_num',
    'arrays/foreach_sort_str',
    'arrays/foreach_value',
    'arrays/in_multi',
    'arrays/in_scalar',
    'arrays/in_string',
    'arrays/keys1',
    'arrays/keys2',
    'arrays/keys3',
    'arrays/keys4',
    'arrays/keys5',
    'arrays/keys6',
    'arrays/keys7',
    'arrays/keys8',
    'arrays/keys9',
    'arrays/length_array',
    'arrays/overflow',
    'arrays/overflow_stat',
    'arrays/overflow_str',
    'arrays/read_missing',
    'arrays/sort_ties_num',
    'arrays/string_values',
    'arrays/tie_value_sort',
    'stats/empty_array_elem',
    'stats/exit_display_stats',
    'stats/stat_array',
    'stats/stat_array_sort',
    'stats/stat_delete',
    'stats/stat_in',
    'stats/stat_tie_delete',
    # histograms of scalar statistics, printed by runtime/stp_fmt.c
    'stats/exit_display_hist',
    'stats/hist_empty',
    'stats/hist_linear_basic',
    'stats/hist_linear_big',
    'stats/hist_linear_empty',
    'stats/hist_linear_gaps',
    'stats/hist_linear_neg_range',
    'stats/hist_linear_one_bucket',
    'stats/hist_linear_outliers',
    'stats/hist_log_basic',
    'stats/hist_log_minint',
    'stats/hist_log_neg',
    'stats/hist_log_wide',
    'stats/hist_log_zero',
    'values/uninit',
    # try/catch, error() and warn(): errors raised and caught in BPF
    'control/error_begin',
    'control/error_empty_message',
    'control/error_in_timer',
    'control/error_message_long',
    'control/error_newline',
    'control/error_probe',
    'control/error_then_end',
    'control/errors_in_end_after_error',
    'control/foreach_in_try',
    'functions/abort',
    'functions/abort_try',
    'control/try_catch_array_overflow',
    'control/try_catch_div',
    'control/try_catch_empty_stat',
    'control/try_catch_func',
    'control/try_catch_in_end',
    'control/try_catch_loop_continue',
    'control/try_catch_msg',
    'control/try_catch_nested',
    'control/try_catch_nomsg',
    'control/try_in_catch_var_reuse',
    'control/warn',
    'control/warn_many',
    'functions/func_error',
    'printf/sprintf_err_in_arg',
    'probes/end_error_rc',
    'probes/timer_error_stops',
    'values/div_zero_try',
    # @variance, histograms of array rows, @hist_*(s)[i] and foreach over
    # buckets
    'stats/hist_array',
    'stats/hist_foreach',
    'stats/hist_linear_array',
    'stats/hist_linear_foreach',
    'stats/hist_linear_index',
    'stats/hist_log_array_sorted',
    'stats/hist_log_index',
    'stats/variance',
    'stats/variance_big',
    # slices: foreach over a[k, *], [k, *] in a, delete a[*, k]
    'arrays/delete_wildcard',
    'arrays/foreach_slice',
    'arrays/in_wildcard',
    'arrays/tie_multikey_sort',
    'stats/stat_array_multikey',
    # cases that ran already but were not listed
    'functions/maxnesting_chain',
    'strings/maxlen_array',
    'strings/string_compare_sort',
    'tapset/target_zero',
    'values/div_zero_assign_elem',
    'values/ushift_unused_u',
]


@pytest.fixture(scope='module')
def diff_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp('bpfdiff')
    diffcorpus.stage(d)
    return d


@pytest.mark.parametrize('rel', DIFF_CASES)
def test_diff_bpf(diff_dir, rel):
    case = next(c for c in diffcorpus.cases() if c.rel == rel)
    expected = case.expected()
    b = subprocess.run([str(STAP), '-p4', '--runtime=bpf', '-m', case.module,
                        *case.options(), rel + '.stp'], capture_output=True, text=True,
                       cwd=diff_dir)
    assert b.returncode == 0, b.stderr
    r = subprocess.run([str(STAPRUN), case.module + '.bpf.o'], capture_output=True,
                       text=True, cwd=diff_dir, timeout=60)
    assert r.stdout in case.outs()
    assert (untapset(r.stderr), r.returncode) == (untapset(expected[1]), expected[2])
