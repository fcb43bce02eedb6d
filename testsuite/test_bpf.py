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
#   statement, so a runaway loop stops at another count (control/act_*).
import os
import subprocess
import sys

import pytest

from conftest import STAP, STAPRUN

sys.path.insert(0, os.path.dirname(__file__))
import diffcorpus  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason='BPF needs root')


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
     'a * b, a / b, a % b, a << 2, -16 >> 2, -16 >>> 60, a & 3, a | 8, a ^ 5); '
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
     'b-1\nb0\nb2\nend\n'),
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
    ('timer',
     'global n probe timer.ms(20) { n++; if (n == 3) exit() } '
     'probe end { println("n=", n) }',
     'n=3\n'),
]


@pytest.mark.parametrize('name,script,out', RUNS, ids=[r[0] for r in RUNS])
def test_run(name, script, out):
    assert stap('-e', script) == (out, '', 0)


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
    import time
    time.sleep(0.3)
    p.send_signal(2)
    out, err = p.communicate(timeout=30)
    assert (out, err, p.returncode) == ('end 1\n', '', 0)


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


UNSUPPORTED = [
    ('probe perf.sw.cpu_clock.sample(1000000) { println(1) }',
     'probe point perf.type(1).config(0).sample(1000000) is not supported by '
     '--runtime=bpf yet'),
    ('probe begin { %{ /* C */ %} }', 'embedded C is not supported by --runtime=bpf'),
    ('probe begin { printf("%b", 1) }',
     'the printf conversion %b is not supported by --runtime=bpf'),
]


@pytest.mark.parametrize('script,msg', UNSUPPORTED, ids=['perf', 'embedded', 'printf_b'])
def test_unsupported_is_pass3_error(script, msg):
    out, err, rc = stap('-g', '-p4', '-e', script)
    assert rc == 1 and out == ''
    assert msg in err and 'use the kernel module runtime (--runtime=kernel)' in err
    assert 'Pass 3: translation failed.' in err
    assert 'verifier' not in err


# The diff corpus's cases the BPF runtime runs (integer and string
# scalars, the print family, functions, control flow, errors), compared
# with 4.8's goldens as test_diff.py does.
DIFF_CASES = []


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
    assert (b.stderr, b.returncode) == ('', 0)
    r = subprocess.run([str(STAPRUN), case.module + '.bpf.o'], capture_output=True,
                       text=True, cwd=diff_dir, timeout=60)
    assert r.stdout in case.outs()
    assert (r.stderr, r.returncode) == expected[1:]
