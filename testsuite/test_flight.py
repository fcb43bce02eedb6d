# The flight recorder (issue 18): `staprun -L` loads a module, starts its
# probes and detaches; the module runs on with its output in its per-CPU
# relay buffers in overwrite mode (the newest output survives); `staprun
# -A NAME` attaches to it (the buffered output, then the live one; SIGINT
# ends the session, SIGQUIT detaches again); the module survives a kill -9
# of its stapio; `staprun -d` removes a detached module; `staprun -D` runs
# in the background; `stap -F` is -L (or -D with -o). All in one guest boot.
#
# What SystemTap 4.8 does (Debian's staprun, same guest, measured):
# - `staprun -L m.ko`: nothing on stdout, rc 0, on stderr
#   "\nDisconnecting from systemtap module.\nTo reconnect, type
#   \"staprun -A m\"\n"; the begin probe's output waits for -A; -L ignores
#   -o (no file is made).
# - `staprun -A m`: the begin and timer probes' output, then on SIGINT the
#   end probe's, and the module is removed.
# - kill -9 of stapio: the module stays loaded and runs; -A gets what was
#   printed after the kill.
# - an error while detached (MAXERRORS 0): -A gets the output up to it,
#   "ERROR: e" and "WARNING: Number of errors: 1, skipped probes: 0",
#   rc 1, and the module is removed.
# - -A of a module that is not ours, or of none: "ERROR: Cannot attach to
#   module NAME control channel; not running?", rc 1.
# - -D without -o: "ERROR: You have to specify output FILE with '-D'
#   option." and the usage on stdout, rc 1. -D -o FILE: rc 0, the pid of
#   the stapio left running on stdout alone on its line; SIGINT to it ends
#   the session (end probe in FILE, module removed).
# - -b 1 -L, then -A after 3 s of flood: the output starts at a late
#   record (the oldest were overwritten).
# - -h: the usage on stdout, rc 0.
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

import guest
from conftest import STAP, STAPRUN, build_args

TICKS = '''global n
probe begin { printf("begin\\n") }
probe timer.ms(100) { if (n < %d) printf("tick %%d\\n", ++n) }
probe end { printf("end %%d\\n", n) }
'''
# exit() while no stapio is attached
EXITS = '''global n
probe begin { printf("begin\\n") }
probe timer.ms(100) { printf("tick %d\\n", ++n); if (n == 3) exit() }
probe end { printf("end %d\\n", n) }
'''
# a run-time error while no stapio is attached (as 4.8's MAXERRORS 0)
ERRS = '''global n
probe begin { printf("begin\\n") }
probe timer.ms(100) { printf("tick %d\\n", ++n); if (n == 3) error("e") }
probe end { printf("end %d\\n", n) }
'''
# 3.6 MB printed while detached, into 1 MiB of relay buffer
OVER_LINES = 36000
OVER = '''global n
probe timer.ms(10) { for (i = 0; i < 300 && n < %d; i++) printf("rec %%06d %%s\\n", ++n, "%s") }
probe end { printf("end %%d\\n", n) }
''' % (OVER_LINES, 'x' * 85)
# more warnings while detached than the control queue holds
WARNS = '''global done
probe timer.ms(100) { if (!done) { done = 1; for (i = 0; i < 2000; i++) warn(sprintf("w%d", i)) } }
'''
WSCRIPT = 'probe begin { warn("careful"); printf("w\\n"); exit() }'
FSCRIPT = 'probe begin { printf("fbegin\\n") } probe end { printf("fend\\n") }'

DETACHED = ('\nDisconnecting from systemtap module.\n'
            'To reconnect, type "staprun -A {}"\n')
SR = str(STAPRUN)


def loaded(name):
    return f'grep -c "^{name} " /proc/modules'


def attach_then(name, secs, sig='INT', out=None):
    """staprun -A NAME in the background, SIG after SECS seconds; rc=."""
    redir = f' > {out}' if out else ''
    return (f'{SR} -A {name}{redir} & P=$!; sleep {secs}; kill -{sig} $P; '
            f'wait $P; echo rc=$?')


@pytest.fixture(scope='module')
def results(tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('flight')
    krel = guest.kernel_release()
    builds = {'fl_a': ['-e', TICKS % 5], 'fl_k': ['-e', TICKS % 10],
              'fl_q': ['-e', TICKS % 20], 'fl_d': ['-e', TICKS % 5],
              'fl_b': ['-e', TICKS % 5], 'fl_e': ['-e', EXITS],
              'fl_r': ['-e', ERRS], 'fl_x': ['-e', TICKS % 5],
              'fl_o': ['-DMAXACTION=100000', '-e', OVER],
              'fl_w': ['-DMAXACTION=100000', '-e', WARNS],
              'fl_n': ['-e', TICKS % 3]}
    with ThreadPoolExecutor(max_workers=2) as ex:
        list(ex.map(lambda n: build_args(n, builds[n], scratch), builds))
    # stap -F in the guest finds this module in its cache
    sysdir = scratch / 'sysdir'
    r = subprocess.run([str(STAP), '-p4', '-r', krel, '-e', FSCRIPT],
                       env={'SYSTEMTAP_DIR': str(sysdir), 'PATH': '/usr/bin:/bin'},
                       capture_output=True, text=True, cwd=scratch)
    assert r.returncode == 0, r.stderr
    (scratch / 'host-f.path').write_text(r.stdout)
    for args in (['-w', '-e', WSCRIPT], ['-e', WSCRIPT]):
        r = subprocess.run([str(STAP), '-p4', '-r', krel] + args,
                           env={'SYSTEMTAP_DIR': str(sysdir), 'PATH': '/usr/bin:/bin'},
                           capture_output=True, text=True, cwd=scratch)
        assert r.returncode == 0, r.stderr
    cmds = {
        'load': f'{SR} -L fl_a.ko; echo rc=$?; {loaded("fl_a")}',
        'attach': 'sleep 1; ' + attach_then('fl_a', 2) + f'; {loaded("fl_a")}',
        'kill9': f'{SR} fl_k.ko > k1.out & P=$!; sleep 0.5; kill -9 $P; '
                 f'wait $P; sleep 1; {loaded("fl_k")}; '
                 + attach_then('fl_k', 1.5, out='k2.out') +
                 f'; cat k1.out k2.out; {loaded("fl_k")}',
        'quit': f'{SR} -L fl_q.ko 2>/dev/null; '
                + attach_then('fl_q', 0.7, 'QUIT', 'q1.out') +
                f'; {loaded("fl_q")}; sleep 0.5; '
                + attach_then('fl_q', 2.5, out='q2.out') +
                f'; cat q1.out q2.out; {loaded("fl_q")}',
        'delete': f'{SR} -L fl_d.ko 2>/dev/null; sleep 0.3; {SR} -d fl_d; '
                  f'echo rc=$?; {loaded("fl_d")}',
        'busy': f'{SR} -L fl_b.ko 2>/dev/null; {SR} -A fl_b > /dev/null & '
                f'P=$!; sleep 1; {SR} -A fl_b; echo rc=$?; kill -INT $P; '
                f'wait $P; echo rc=$?; {loaded("fl_b")}',
        'foreign': f'{SR} -A 9p; echo rc=$?; {SR} -A nosuch; echo rc=$?; '
                   f'{loaded("9p")}',
        'exit': f'{SR} -L fl_e.ko 2>/dev/null; sleep 1.5; {SR} -A fl_e; '
                f'echo rc=$?; {loaded("fl_e")}',
        'error': f'{SR} -L fl_r.ko 2>/dev/null; sleep 1.5; {SR} -A fl_r; '
                 f'echo rc=$?; {loaded("fl_r")}',
        'over': f'{SR} -s 1 -L fl_o.ko 2>/dev/null; sleep 6; '
                + attach_then('fl_o', 2, out='o.out') +
                f'; {loaded("fl_o")}',
        'warns': f'{SR} -L fl_w.ko 2>/dev/null; sleep 1.5; '
                 + attach_then('fl_w', 1) + f'; {loaded("fl_w")}',
        'daemon': f'{SR} -D -o x.out fl_x.ko > pid.out; echo rc=$?; '
                  'P=$(cat pid.out); sleep 1; kill -INT $P; '
                  'while kill -0 $P 2>/dev/null; do sleep 0.1; done; '
                  f'cat x.out; {loaded("fl_x")}',
        # -R: the same module twice at once, under two new names
        'rename': f'{SR} -R -L fl_n.ko 2> n1.err; {SR} -R -L fl_n.ko 2> n2.err; '
                  'grep -c "^fl_n_[0-9]* " /proc/modules; for f in n1 n2; do '
                  'N=$(sed -n \'s/.*staprun -A \\(fl_n_[0-9]*\\)"$/\\1/p\' $f.err); '
                  + attach_then('$N', 1) + '; done; grep -c "^fl_n" /proc/modules',
        'daemon_no_o': f'{SR} -D fl_x.ko; echo rc=$?',
        # the module built on the host for this kernel is a hit here (the
        # cache key has the BTF's bytes, not where they were read from)
        'cached': f'SYSTEMTAP_DIR={sysdir} {STAP} -p4 -e \'{FSCRIPT}\'',
        'stap_f': f'SYSTEMTAP_DIR={sysdir} {STAP} -F -e \'{FSCRIPT}\' 2> f.err; '
                  'echo rc=$?; N=$(sed -n \'s/.*staprun -A \\([a-z0-9_]*\\)"$/\\1/p\' f.err); '
                  + attach_then('$N', 1) + '; grep -c "^$N " /proc/modules',
        'stap_w': f'SYSTEMTAP_DIR={sysdir} {STAP} -w -e \'{WSCRIPT}\'; echo rc=$?; '
                  f'SYSTEMTAP_DIR={sysdir} {STAP} -e \'{WSCRIPT}\'; echo rc=$?',
        'left': 'grep -c "^fl_\\|^stap_" /proc/modules; true',
    }
    batch = guest.run_batch(list(cmds.values()), scratch=str(scratch),
                            timeout=120, memory_mb=512)
    guest.check_kernel_healthy(batch)
    return dict(zip(cmds, batch)), scratch


def ticks(n, end=None):
    return 'begin\n' + ''.join(f'tick {i}\n' for i in range(1, n + 1)) + \
        (f'end {n if end is None else end}\n')


def test_load_detaches(results):
    r = results[0]['load']
    assert (r.stdout, r.stderr) == ('rc=0\n1\n', DETACHED.format('fl_a'))


def test_attach_gets_buffered_then_ends(results):
    r = results[0]['attach']
    assert (r.stdout, r.stderr) == (ticks(5) + 'rc=0\n0\n', '')


def test_kill9_then_attach(results):
    r = results[0]['kill9']
    assert r.stderr == 'Killed\n'    # the shell's word on its job
    assert r.stdout == '1\nrc=0\n' + ticks(10) + '0\n'


def test_sigquit_detaches_then_attach(results):
    r = results[0]['quit']
    assert r.stderr == DETACHED.format('fl_q')
    assert r.stdout == 'rc=0\n1\nrc=0\n' + ticks(20) + '0\n'


def test_delete_detached(results):
    r = results[0]['delete']
    assert (r.stdout, r.stderr) == ('rc=0\n0\n', '')


def test_attach_busy_refused(results):
    r = results[0]['busy']
    assert r.stderr == ('ERROR: Cannot attach to module fl_b control channel; '
                        'it already has a reader (another staprun -A?)\n')
    assert r.stdout == 'rc=1\nrc=0\n0\n'


def test_attach_foreign_refused(results):
    r = results[0]['foreign']
    assert r.stderr == (
        'ERROR: Cannot attach to module 9p control channel; not running?\n'
        'ERROR: Cannot attach to module nosuch control channel; not running?\n')
    assert r.stdout == 'rc=1\nrc=1\n1\n'


def test_exit_while_detached(results):
    r = results[0]['exit']
    assert (r.stdout, r.stderr) == (ticks(3) + 'rc=0\n0\n', '')


def test_error_while_detached(results):
    r = results[0]['error']
    assert r.stdout == 'begin\ntick 1\ntick 2\ntick 3\nrc=1\n0\n'
    assert r.stderr == ('ERROR: e\n'
                        'WARNING: Number of errors: 1, skipped probes: 0\n')


def test_overwrite_keeps_newest(results):
    res, scratch = results[0], results[1]
    r = res['over']
    assert (r.stdout, r.stderr) == ('rc=0\n0\n', '')
    out = (scratch / 'o.out').read_text()
    lines = out.splitlines()
    assert lines[-1] == f'end {OVER_LINES}'
    nums = [int(x.split()[1]) for x in lines[:-1]]
    # a contiguous run of the newest records: the oldest were overwritten
    assert nums == list(range(nums[0], OVER_LINES + 1))
    assert nums[0] > 1
    kept = len(out) - len(lines[-1]) - 1
    assert 512 * 1024 < kept <= 1024 * 1024


def test_warnings_while_detached(results):
    # the first ones are kept, the others counted
    r = results[0]['warns']
    assert r.stdout == 'rc=0\n0\n'
    lines = r.stderr.splitlines()
    m = re.fullmatch(r'WARNING: (\d+) warning and error messages were dropped '
                     r'while no stapio was attached', lines[-1])
    assert m, lines[-1]
    kept = lines[:-1]
    assert kept == [f'WARNING: w{i}' for i in range(len(kept))]
    assert len(kept) > 100 and len(kept) + int(m.group(1)) == 2000


def test_daemon(results):
    r = results[0]['daemon']
    out = r.stdout.splitlines()
    assert re.fullmatch(r'rc=0', out[0]) and r.stderr == ''
    assert '\n'.join(out[1:]) + '\n' == ticks(5) + '0\n'
    assert re.fullmatch(r'[1-9][0-9]*\n', (results[1] / 'pid.out').read_text())


def test_rename(results):
    r = results[0]['rename']
    assert (r.stdout, r.stderr) == ('2\n' + (ticks(3) + 'rc=0\n') * 2 + '0\n', '')
    names = set()
    for f in ('n1.err', 'n2.err'):
        err = (results[1] / f).read_text()
        m = re.fullmatch(r'\nDisconnecting from systemtap module.\n'
                         r'To reconnect, type "staprun -A (fl_n_[0-9]+)"\n', err)
        assert m, err
        names.add(m.group(1))
    assert len(names) == 2


def test_daemon_needs_o(results):
    r = results[0]['daemon_no_o']
    assert r.stderr == "ERROR: You have to specify output FILE with '-D' option.\n"
    assert r.stdout.startswith('Usage: staprun') and r.stdout.endswith('rc=1\n')


def test_stap_f(results):
    res, scratch = results
    r = res['stap_f']
    err = (scratch / 'f.err').read_text()
    name = re.search(r'staprun -A (stap_\w+)"', err).group(1)
    assert err == DETACHED.format(name)
    assert (r.stdout, r.stderr) == ('rc=0\nfbegin\nfend\nrc=0\n0\n', '')


def test_guest_hits_module_cached_on_host(results):
    res, scratch = results
    r = res['cached']
    host = (scratch / 'host-f.path').read_text()
    assert re.fullmatch(rf'{scratch}/sysdir/cache/[0-9a-f]{{2}}/stap_\w+\.ko\n', host), host
    assert (r.rc, r.stdout, r.stderr) == (0, host, '')


def test_stap_w_suppresses_module_warnings(results):
    # as 4.8: stap -w passes -w to staprun
    r = results[0]['stap_w']
    assert (r.stdout, r.stderr) == ('w\nrc=0\nw\nrc=0\n', 'WARNING: careful\n')


def test_nothing_left(results):
    assert results[0]['left'].stdout == '0\n'


def test_help_and_version(tools):
    r = subprocess.run([SR, '-h'], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == ''
    for opt in ['-v', '-V', '-h', '-w', '-u', '-c', '-x', '-N', '-o', '-b',
                '-L', '-A', '-C', '-d', '-R', '-r', '-D', '-S', '-T', '-i',
                '-s']:
        assert re.search(rf'^{opt} ', r.stdout, re.M), opt
    r = subprocess.run([SR, '-V'], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith(
        'Systemtap module loader/runner (version ')
    r = subprocess.run([SR, '-Q'], capture_output=True, text=True)
    assert r.returncode == 1 and r.stdout == '' and 'Usage: staprun' in r.stderr
