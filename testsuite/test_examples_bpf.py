# Debian's example scripts through stap --runtime=bpf -p4 on this host
# (examples_bpf.py): each one builds, or fails with exactly the first error
# corpus/examples-bpf.tsv records, and every failure is a clear one (status
# 1, FILE:LINE:COL with a caret, no compiler or verifier text). A change
# that breaks an example, or makes one build, shows here;
# `examples_bpf.py --record` rewrites the record after a deliberate change.
# Built for the running kernel (its BTF and tracefs), as root.
import os
import re
import subprocess

import pytest

import kbtf
from conftest import STAP
from examples import examples, rel
from examples_bpf import clear_failure, copy_tree, load_record, outcome, run_all

RECORD = load_record()
SCRIPTS = examples()


@pytest.fixture(scope='module')
def results(tmp_path_factory):
    """Every example built once, two at a time (the suite's own cache)."""
    assert os.geteuid() == 0, 'reading the kernel BTF and tracefs needs root'
    return run_all(copy_tree(tmp_path_factory.mktemp('ex') / 'examples'))


def test_record_covers_every_example():
    assert sorted(RECORD) == sorted(rel(p) for p in SCRIPTS)
    assert len(RECORD) >= 190
    assert sum(1 for v in RECORD.values() if v == 'ok') >= 20


@pytest.mark.parametrize('script', SCRIPTS, ids=[rel(p) for p in SCRIPTS])
def test_example_bpf_p4(script, results):
    r = results[rel(script)]
    assert outcome(r) == RECORD[rel(script)]
    if r.returncode:
        assert clear_failure(r) is None, r.stderr


# ---- what the examples found, run on this host ------------------------------

def stap(*args, timeout=120):
    r = subprocess.run([str(STAP), '--runtime=bpf', *args], capture_output=True,
                       text=True, timeout=timeout)
    return r.stdout, r.stderr, r.returncode


def test_tracepoint_systems_from_tracefs():
    """Without trace headers the running kernel's tracefs names the
    systems (the tapsets' kernel.trace("sched:sched_switch")), and
    __traceiter_NAME the parameters (sched_wakeup's $p, not $arg1)."""
    r = subprocess.run([str(STAP), '-L', 'kernel.trace("sched:sched_wakeup")'],
                       capture_output=True, text=True, timeout=60)
    assert (r.stdout, r.returncode) == (
        'kernel.trace("sched:sched_wakeup") $p:struct task_struct*\n', 0)
    assert 'no kernel trace headers' not in r.stderr


def test_foreach_in_function_with_many_counts(tmp_path):
    """A foreach in a function is checked once by the verifier, as a
    handler's: six @count(a[k]) in its body were 'too complex'
    (memory/mmfilepage.stp's end probe)."""
    script = tmp_path / 'fe.stp'
    script.write_text(
        'global a, b, c, d, e, f\n'
        'function show() {\n'
        '  foreach (k+ in a)\n'
        '    printf("%d %d %d %d %d %d %d\\n", k, @count(a[k]), @count(b[k]),\n'
        '           @count(c[k]), @count(d[k]), @count(e[k]), @count(f[k]))\n'
        '}\n'
        'probe begin {\n'
        '  for (i = 0; i < 3; i++) { a[i] <<< i; b[i] <<< i; b[i] <<< i\n'
        '    c[i] <<< 1; d[i] <<< 1; e[i] <<< 1; f[i] <<< i }\n'
        '  show()\n'
        '  exit()\n'
        '}\n')
    assert stap(str(script)) == ('0 1 2 1 1 1 1\n1 1 2 1 1 1 1\n2 1 2 1 1 1 1\n', '', 0)


def test_cast_of_a_value_reads_and_faults():
    """@cast(v, ...)->member from any value (the tapsets' task_execname(),
    nettop's get_netdev_name()), a bad address a read fault near the
    @cast, as the module runtime says it."""
    out, err, rc = stap('-e', 'function comm(t) { return kernel_string('
                        '@cast(t, "task_struct", "kernel")->comm) } '
                        'probe begin { printf("%d\\n", @cast(8, "task_struct", '
                        '"kernel")->pid) }')
    assert (out, rc) == ('', 1)
    assert re.fullmatch(r"ERROR: read fault \[man error::fault\] at 0x[0-9a-f]+ near "
                        r"operator '@cast' at <input>:1:\d+\n"
                        r"WARNING: Number of errors: 1, skipped probes: 0\n"
                        r"Pass 5: run failed.  \[man error::pass5\]\n", err), err


def test_optional_point_of_none_reads_targets():
    """An optional point that resolved to none has no handler to write
    (its $vars were 'not supported here')."""
    assert stap('-e', 'global s probe kernel.trace("no_such_tracepoint_zz")? '
                '{ s <<< $nr } probe begin { println("up"); exit() }') == ('up\n', '', 0)


def test_unsupported_point_said_before_its_handler():
    """A procfs point is what is reported, not its handler's $value."""
    out, err, rc = stap('-p4', '-e', 'probe procfs("x").read { $value = "a" }')
    assert (out, rc) == ('', 1)
    assert err.startswith('<input>:1:7: error: probe point procfs("x").read is not '
                          'supported by --runtime=bpf yet: use the kernel module '
                          'runtime (--runtime=kernel)\n'), err
    assert err.count(': error: ') == 1, err


def test_address_of_cast_member():
    """&@cast(0, "T")[1] is sizeof(T) and &...->m its offset, relocated for
    this kernel (general/sizeof.stp printed an address on the BPF stack)."""
    parsed = kbtf.parse(open('/sys/kernel/btf/vmlinux', 'rb').read())
    size = next(s for kind, name_off, _, members, s in parsed[0][1:]
                if kind == kbtf.KIND_STRUCT and members and
                parsed[1](name_off) == 'task_struct')
    out = stap('-e', 'probe begin { println(&@cast(0, "task_struct", "kernel")[1]) '
               'println(&@cast(0, "task_struct", "kernel")->pid) exit() }')
    assert out == (f'{size}\n{kbtf.member_offset(parsed, "task_struct", "pid")}\n', '', 0)


def test_regex_match_is_a_pass3_error_said_once():
    """=~ and !~ were written into the BPF C as they are, and clang's error
    reached the user (general/regex.stp); they are a pass-3 error naming
    the operator, said once although the probe's two points get a handler
    each (syscall.open: open and openat)."""
    out, err, rc = stap('-p4', '-e', 'probe syscall.open { if (filename =~ "a") '
                        'println(filename) }')
    assert (out, err, rc) == ('', (
        '<input>:1:35: error: regular expression matching (=~) is not supported by '
        '--runtime=bpf: use the kernel module runtime (--runtime=kernel)\n'
        '    1 | probe syscall.open { if (filename =~ "a") println(filename) }\n'
        '      |                                   ^\n'
        'Pass 3: translation failed.  [man error::pass3]\n'), 1)
