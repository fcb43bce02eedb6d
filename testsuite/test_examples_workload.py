# Example scripts of Debian's systemtap-doc run under a workload whose
# events are known: `staprun -c './wl /tmp/wl.txt'` starts WL (below, a
# static C program: file I/O, open errors, forks, wait4, kill with
# SIGUSR1/SIGKILL/0, a SIGUSR1 to itself, an exec of /bin/true, a unix-socket accept) and the
# script ends when it does. What each prints must be what Debian's
# SystemTap 4.8 printed in the same guest (its modules built with
# `-R /tmp/stap-rt -r KB`, KB holding a System.map of the guest's
# kallsyms; run with 4.8's staprun), recorded in
# corpus/examples-workload.json by `test_examples_workload.py --record KB`.
#
# Both outputs go through normalize() before comparison; what it masks
# varies from run to run or between the two staprun/stapio programs:
# - pids become P1, P2, ... by numeric rank (pids grow in fork order, so
#   the same processes get the same names in both runs);
# - times (ctime(), microsecond stamps and durations, the buckets of
#   accept2close's histogram of one duration) and killsnoop's
#   RESULT (int_arg(1) in a .return probe: a stale kernel register) are *;
# - where a script counts every process's syscalls, the lines about stapio
#   are dropped: its own syscalls differ (ours polls waitpid, 4.8 waits
#   once; their main loops differ), though the -c child, held in
#   rt_sigsuspend until stapio's SIGUSR1, is as 4.8's;
# - where a script sorts by a count, entries of equal count are sorted:
#   4.8 lists ties in its hash-table order;
# - the ancestors of staprun that pstrace_exec lists (the guest harness's
#   shells);
# - the address forktracker and pstree print for an exec's filename (it
#   depends on how wl was linked).
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import guest
from conftest import STAPRUN, run_stap
from examples import EXAMPLES

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / 'corpus' / 'examples-workload.json'
CMD = './wl /tmp/wl.txt'

WL_C = r'''
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void on_usr1(int sig)
{
	(void)sig;
}

static void reap(pid_t p)
{
	int st;
	waitpid(p, &st, 0);
}

int main(int argc, char **argv)
{
	char buf[256];
	const char *f = argc > 1 ? argv[1] : "/tmp/wl.txt";
	int fd, s, c, a;
	pid_t p;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct timespec ts = { 0, 20000000 };

	fd = syscall(SYS_open, f, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	memset(buf, 'x', sizeof(buf));
	write(fd, buf, 100);
	close(fd);
	fd = syscall(SYS_open, f, O_RDONLY);
	read(fd, buf, sizeof(buf));
	read(fd, buf, sizeof(buf));
	close(fd);
	syscall(SYS_open, "/nonexistent/wl", O_RDONLY);
	p = fork();
	if (p == 0)
		_exit(7);
	reap(p);
	p = fork();
	if (p == 0) {
		pause();
		_exit(0);
	}
	nanosleep(&ts, NULL);
	kill(p, SIGUSR1);
	reap(p);
	p = fork();
	if (p == 0) {
		pause();
		_exit(0);
	}
	nanosleep(&ts, NULL);
	kill(p, SIGKILL);
	reap(p);
	p = fork();
	if (p == 0) {
		execl("/bin/true", "true", "arg1", (char *)NULL);
		_exit(1);
	}
	reap(p);
	memcpy(un.sun_path, "\0wl-sock", 8);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	bind(s, (struct sockaddr *)&un, offsetof(struct sockaddr_un, sun_path) + 8);
	listen(s, 1);
	p = fork();
	if (p == 0) {
		c = socket(AF_UNIX, SOCK_STREAM, 0);
		connect(c, (struct sockaddr *)&un,
			offsetof(struct sockaddr_un, sun_path) + 8);
		write(c, "hi", 2);
		close(c);
		_exit(0);
	}
	a = accept(s, NULL, NULL);
	read(a, buf, sizeof(buf));
	close(a);
	close(s);
	reap(p);
	kill(getpid(), 0);
	signal(SIGUSR1, on_usr1);
	kill(getpid(), SIGUSR1);
	unlink(f);
	return 0;
}
'''

# kprocess.exec's filename: 4.8 prints the address of execl()'s path
HEX = r'(0x[0-9a-f]+)'
CTIME = r'(\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})'

# name -> (example, script arguments, normalize() rules): `fields` lists
# (regex, kinds): each group of each match is a pid (p) or masked (x);
# `stapio`: drop the lines naming stapio; `ties`: a regex whose group is
# the count the script sorts by
CASES = {
    'hello': ('general/helloworld.stp', [], {}),
    'opensnoop': ('lwtools/opensnoop-nd.stp', [], {'fields': [(r'^ +\d+ +(\d+) ', 'p')]}),
    'killsnoop': ('lwtools/killsnoop-nd.stp', [], {
        'fields': [(r'^(\d+) +\S+ +\d+ +(\d+) +(-?\d+)$', 'ppx')]}),
    'execsnoop': ('lwtools/execsnoop-nd.stp', [], {
        'fields': [(r'^' + CTIME + r' +\d+ +(\d+) +(\d+) ', 'xpp')]}),
    'accept2close': ('lwtools/accept2close-nd.stp', [], {
        'fields': [(r'^' + CTIME + r' (\d+) ', 'xp'), (r' (\d+) ms$', 'x'),
                   (r'^( *\d+) \|', 'x'), (r'^( *)value \|', 'x')]}),
    'syscallbypid': ('lwtools/syscallbypid-nd.stp', [], {
        'stapio': True, 'ties': r' (\d+)$', 'fields': [(r'^(\d+) ', 'p')]}),
    'forktracker': ('process/forktracker.stp', [], {
        'fields': [(r'^' + CTIME + r' +: \S+ \((\d+):(\d+)\) created (\d+):(\d+)$', 'xpppp'),
                   (r'^' + CTIME + r' +: \S+ \((\d+)\) is exec', 'xp'), (HEX, 'x')]}),
    'sigmon': ('process/sigmon.stp', ['SIGUSR1'], {
        'fields': [(r'^(\d+) +\S+ +(\d+) ', 'pp')]}),
    'sigkill': ('process/sigkill.stp', [], {'fields': [(r'\(pid:(\d+)\)', 'p')]}),
    'sig_by_pid': ('process/sig_by_pid.stp', [], {
        'ties': r' (\d+)$', 'fields': [(r'^(\d+) +\S+ +(\d+) ', 'pp')]}),
    'sig_by_proc': ('process/sig_by_proc.stp', [], {'ties': r' (\d+)$'}),
    'wait4time': ('process/wait4time.stp', [], {
        'stapio': True, 'fields': [(r'^(\d+) (\d+) \(\S+\) wait4: (\d+) (-?\d+)$', 'xpxp')]}),
    'sc_by_proc': ('process/syscalls_by_proc.stp', [], {'stapio': True}),
    'errno': ('profiling/errno.stp', [], {
        'stapio': True, 'ties': r' (\d+)$', 'fields': [(r'^ +(\d+) ', 'p')]}),
    'sleeptime': ('process/sleeptime.stp', [], {
        'stapio': True, 'fields': [(r'^(\d+) (\d+) \(\S+\) \S+: (\d+)$', 'xpx')]}),
    'iostats': ('io/iostats.stp', [], {'stapio': True}),
    'iotime': ('io/iotime.stp', [], {
        'fields': [(r'^(\d+) (\d+) ', 'xp'), (r' time: (\d+)$', 'x')]}),
    'pstrace_exec': ('process/pstrace_exec.stp', ['wl'], {
        'fields': [(r'^  stapio\((\d+)\) stapio\((\d+)\)( .*)$', 'ppx')]}),
    'pstree': ('process/pstree.stp', [], {
        'fields': [(r'PID(\d+)_', 'p'), (r'\((\d+)\)', 'p'), (r'forked from (\d+)', 'p'),
                   (HEX, 'x')]}),
}


def _fields(rules, line, pids):
    """line with its masked groups as *, its pid groups as the pids' text
    (collected in pids when it is a set, else renamed by the dict)."""
    for rx, kinds in rules.get('fields', []):
        def sub(m):
            out, last = [], m.start()
            for i, kind in enumerate(kinds, 1):
                out.append(m.string[last:m.start(i)])
                v = m.group(i)
                if kind == 'x':
                    v = '*'
                elif isinstance(pids, set):
                    pids.add(int(v))
                else:
                    v = pids[int(v)]
                out.append(v)
                last = m.end(i)
            out.append(m.string[last:m.end()])
            return ''.join(out)
        line = re.sub(rx, sub, line)
    return line


def normalize(name, text):
    """What is compared of example name's stdout (see the top comment)."""
    return normalize_rules(CASES[name][2], text)


def normalize_rules(rules, text):
    """text normalized by rules (CASES' third items)."""
    lines = text.split('\n')
    if rules.get('stapio'):
        lines = [x for x in lines if not re.search(r'\bstapio\b', x)]
    seen = set()
    for x in lines:
        _fields(rules, x, seen)
    ranks = {p: f'P{i}' for i, p in enumerate(sorted(seen), 1)}
    lines = [_fields(rules, x, ranks) for x in lines]
    if rules.get('ties'):
        out, i = [], 0
        while i < len(lines):
            m = re.search(rules['ties'], lines[i])
            j = i + 1
            while m and j < len(lines) and (re.search(rules['ties'], lines[j]) or [0, 0])[1] == m[1]:
                j += 1
            out += sorted(lines[i:j])
            i = j
        lines = out
    return '\n'.join(lines)


def build_wl(scratch):
    subprocess.run(['gcc', '-O1', '-static', '-o', str(scratch / 'wl'), '-x', 'c', '-'],
                   input=WL_C, text=True, check=True)


def run_modules(scratch, staprun, prefix, names=CASES, timeout=60):
    """Run every case's module prefix + name under the workload, one boot."""
    commands = [f"cd {scratch}; {staprun} -c '{CMD}' {prefix}{n}.ko" for n in names]
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=timeout)
    guest.check_kernel_healthy(batch)
    return dict(zip(names, batch))


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('examples_workload')
    build_wl(scratch)

    def build(name):
        example, args, _ = CASES[name]
        r = run_stap(['-p4', '-r', krel, '-m', f'ew_{name}', str(EXAMPLES / example)] + args,
                     cwd=scratch, timeout=300)
        assert r.returncode == 0, f'{name}: {r.stderr}'
    return build_and_run(scratch, build, 'ew_')


def build_and_run(scratch, build, prefix, names=CASES, timeout=60):
    """build(name) for every case, two at a time, then run_modules()."""
    with ThreadPoolExecutor(max_workers=2) as ex:
        list(ex.map(build, names))
    return run_modules(scratch, STAPRUN, prefix, names, timeout)


def assert_as_recorded(expected_file, norm, r, name):
    """r (a guest result) printed what expected_file records for name."""
    expected = json.loads(expected_file.read_text())[name]
    assert (norm(name, r.stdout), r.stderr, r.rc) == (expected, '', 0)


@pytest.mark.parametrize('name', list(CASES))
def test_example_under_workload(run, name):
    assert_as_recorded(EXPECTED, normalize, run[name], name)


def record(kb, scratch):
    """Build the cases with 4.8 (-r kb: a System.map of the guest's
    kallsyms), run them with its staprun and write EXPECTED."""
    scratch = Path(scratch)
    build_wl(scratch)
    for name, (example, args, _) in CASES.items():
        subprocess.run(['/usr/bin/stap', '-R', '/tmp/stap-rt', '-r', kb, '-p4', '-m',
                        f'u_{name}', str(EXAMPLES / example)] + args, cwd=scratch, check=True)
    write_recorded(run_modules(scratch, '/usr/bin/staprun', 'u_'), EXPECTED, normalize)


def write_recorded(res, expected_file, norm):
    """4.8's results res, each clean, normalized into expected_file."""
    for name, r in res.items():
        assert (r.stderr, r.rc) == ('', 0), (name, r.stderr)
    expected_file.write_text(json.dumps({n: norm(n, r.stdout) for n, r in res.items()},
                                        indent=1) + '\n')


def main(record_fn, argv):
    if argv[1:2] == ['--record'] and len(argv) == 4:
        record_fn(argv[2], argv[3])
    else:
        sys.exit(f'usage: {Path(argv[0]).name} --record KB SCRATCH')


if __name__ == '__main__':
    main(record, sys.argv)
