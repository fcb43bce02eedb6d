# Handlers running on two CPUs at once (guest with cpus=2): a kprobe on
# ksys_read hit by one `dd bs=1` per CPU (taskset), updating shared scalar,
# array and statistic globals. The totals must agree exactly (no lost
# update under the locks, @count of the aggregates equal to the counters),
# contention with MAXTRYLOCK=0 must end in skipped probes reported as
# SystemTap 4.8 reports them (its format, checked against 4.8 in the same
# guest: "WARNING: Number of errors: 0, skipped probes: N"; past MAXSKIPPED
# "ERROR: Skipped too many probes, ..." and the error probes run), and the
# kernel must stay healthy. The counts themselves depend on timing.
# A statistics array is per CPU: its rows come CPU by CPU (CPU 0's first,
# even when CPU 1 added its row first), as 4.8 prints them.
import re

import pytest

import guest
from conftest import STAPRUN, run_stap

N = 3000            # one-byte reads per dd
HOLD = 20000        # iterations a contending handler holds its locks

SCRIPTS = {
    'cc_consistent': (
        'global per, total, agg, aggm '
        'probe begin { println("ready") } '
        'probe kernel.function("ksys_read") { '
        'if (execname() != "dd" || $count != 1) next; '
        'c = cpu(); per[c]++; total++; agg <<< 1; aggm[c] <<< c } '
        'probe end { s = 0; n = 0; foreach (k in per) { s += per[k]; n++ } '
        'm = 0; ms = 0; foreach (k in aggm) { m += @count(aggm[k]); ms += @sum(aggm[k]) } '
        'printf("cpus %d\\n", n); '
        'printf("total %d sum %d count %d mapcount %d\\n", total, s, @count(agg), m); '
        'printf("cpu1 %d %d\\n", per[1], ms) }', []),
    'cc_skips': (
        'global x, hold probe begin { println("ready") } '
        'probe kprobe.function("ksys_read") { if (execname() != "dd") next; '
        f'x++; for (i = 0; i < {HOLD}; i++) hold++ }} '
        f'probe end {{ printf("x>0 %d exact %d\\n", x > 0, hold == x * {HOLD}) }}',
        ['-DMAXTRYLOCK=0', '-DTRYLOCKDELAY=0', '-DMAXSKIPPED=100000000',
         '-DMAXACTION=1000000']),
    'cc_maxskipped': (
        'global x, hold probe begin { println("ready") } '
        'probe kprobe.function("ksys_read") { if (execname() != "dd") next; '
        f'x++; for (i = 0; i < {HOLD}; i++) hold++ }} '
        'probe end { println("end") } probe error { println("error probe ", x > 0) }',
        ['-DMAXTRYLOCK=0', '-DTRYLOCKDELAY=0', '-DMAXSKIPPED=3', '-DMAXACTION=1000000']),
    'cc_stat_order': (
        'global s probe timer.profile { c = cpu(); if (c == 1 || 1 in s) s[c] <<< 1; '
        'if (0 in s && 1 in s) exit() } '
        'probe end { foreach (k in s) printf("%d ", k); println("") }', []),
}

# staprun in the background; once the begin probe has printed, one dd per
# CPU; then SIGINT (the session may have ended by itself already).
LOAD = ('{staprun} -o {mod}.out {mod}.ko 2> {mod}.err & P=$!; '
        'for i in $(seq 100); do grep -q ready {mod}.out 2>/dev/null && break; sleep 0.2; done; '
        'taskset -c 0 dd if=/dev/zero of=/dev/null bs=1 count={n} 2>/dev/null & D0=$!; '
        'taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count={n} 2>/dev/null & D1=$!; '
        'wait $D0 $D1; sleep 0.3; kill -INT $P 2>/dev/null; wait $P; echo "rc=$?"; '
        'cat {mod}.out; cat {mod}.err >&2')

# both CPUs busy; the script adds CPU 1's row first, then CPU 0's, and exits
LOAD_BUSY = ('taskset -c 0 dd if=/dev/zero of=/dev/null bs=64k count=2000000 & A=$!; '
             'taskset -c 1 dd if=/dev/zero of=/dev/null bs=64k count=2000000 & B=$!; '
             'timeout 60 {staprun} {mod}.ko; echo "rc=$?"; kill $A $B')
LOADS = {'cc_stat_order': LOAD_BUSY}

SKIPPED = re.compile(r'WARNING: Number of errors: 0, skipped probes: (\d+)\n')


@pytest.fixture(scope='module')
def runs(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('concurrency')
    for name, (script, flags) in SCRIPTS.items():
        r = run_stap(['-p4', '-r', krel, '-m', name] + flags + ['-e', script],
                     cwd=scratch)
        assert r.returncode == 0, r.stderr
    cmds = [LOADS.get(name, LOAD).format(staprun=STAPRUN, mod=name, n=N)
            for name in SCRIPTS]
    cmds.append('nproc')
    batch = guest.run_batch(cmds, scratch=str(scratch), timeout=120, cpus=2)
    guest.check_kernel_healthy(batch)
    assert batch[-1].stdout == '2\n'
    return dict(zip(SCRIPTS, batch))


def session(r):
    """(exit status of staprun, its stdout, its stderr)"""
    assert r.rc == 0, r.stderr
    head, _, out = r.stdout.partition('\n')
    assert head.startswith('rc=')
    return int(head[3:]), out, r.stderr


def test_totals_consistent(runs):
    rc, out, err = session(runs['cc_consistent'])
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == 'ready'
    assert lines[1] == 'cpus 2'          # both CPUs ran the handler
    total, s, count, mapcount = map(int, re.fullmatch(
        r'total (\d+) sum (\d+) count (\d+) mapcount (\d+)', lines[2]).groups())
    assert total == s == count == mapcount
    per1, sum1 = map(int, re.fullmatch(r'cpu1 (\d+) (\d+)', lines[3]).groups())
    assert per1 == sum1 > 0              # aggm[1] <<< 1 once per hit on CPU 1
    m = SKIPPED.fullmatch(err)
    assert err == '' or m, err
    skipped = int(m.group(1)) if m else 0
    # every one-byte read of both dd's, less any skipped hit
    assert 2 * N - skipped <= total <= 2 * N
    if not skipped:
        assert total == 2 * N


def test_skips_reported(runs):
    rc, out, err = session(runs['cc_skips'])
    assert rc == 0
    # the locked globals lost no update while handlers contended
    assert out == 'ready\nx>0 1 exact 1\n'
    m = SKIPPED.fullmatch(err)
    assert m and int(m.group(1)) > 0, err


def test_maxskipped(runs):
    rc, out, err = session(runs['cc_maxskipped'])
    assert rc == 1
    assert out == 'ready\nerror probe 1\n'   # no end probe after the limit
    m = re.fullmatch(r'ERROR: Skipped too many probes, check MAXSKIPPED or try again '
                     r'with stap -t for more details\.\n' + SKIPPED.pattern, err)
    assert m and int(m.group(1)) > 3, err


def test_stat_array_cpu_order(runs):
    r = runs['cc_stat_order']
    assert r.stdout == '0 1 \nrc=0\n'
    # Both CPUs take the profile tick and update s under its lock; when the
    # host deschedules the vCPU holding it, the other CPU's handler gives up
    # after MAXTRYLOCK and is counted as skipped, as 4.8 does.
    assert r.stderr == '' or SKIPPED.fullmatch(r.stderr), r.stderr
