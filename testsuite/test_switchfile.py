# Output files: stap/staprun -o FILE, -S SIZE[,N] (rotation by size, at
# most N files kept) and the tapset function switch_file(), compared with
# Debian's SystemTap 4.8. Its results were recorded once in the same
# guest with one CPU (modules built with `/usr/bin/stap -R /tmp/stap-rt
# -r KREL -p4 -m NAME`, run with `/usr/bin/staprun -o out -S ... NAME.ko`;
# 4.8's stap passes -o and -S on to staprun unchanged). With two CPUs 4.8
# is racy: its switch_file() signals stapio through system(), and its
# per-CPU readers switch some time later. Ours switches exactly where the
# script called it, which is where 4.8 switches when one CPU runs it.
# Option errors of stap (pass 1) and staprun are checked on the host.
import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import guest
from conftest import STAP, STAPRUN, build_args, run_stap

SCRIPTS = {
    # a switch every other tick, then exit
    'sw_ticks': '''global n
probe begin { println("one") }
probe timer.ms(500) {
	n++
	printf("tick %d\\n", n)
	if (n % 2 == 0)
		switch_file()
	if (n == 7)
		exit()
}
probe end { println("end") }
''',
    # a switch with nothing printed since the last one
    'sw_gaps': '''global n
probe begin { println("first") }
probe timer.ms(700) {
	n++
	if (n == 1) { println("before"); switch_file() }
	if (n == 3) println("after")
	if (n == 4) switch_file()
	if (n == 6) { println("later"); exit() }
}
probe end { println("end") }
''',
    # SIGUSR2 to stapio switches files too: 4.8's switch_file() is exactly
    # this system() call, so the results of sw_gaps apply
    'sw_usr2': '''global n
probe begin { println("first") }
probe timer.ms(700) {
	n++
	if (n == 1) { println("before"); system(sprintf("kill -USR2 %d", stp_pid())) }
	if (n == 3) println("after")
	if (n == 4) system(sprintf("kill -USR2 %d", stp_pid()))
	if (n == 6) { println("later"); exit() }
}
probe end { println("end") }
''',
    # 8 probes of 3000 lines of 100 bytes: 2.4 MB for -S 1
    'sw_big': '''global n
probe timer.ms(400) {
	n++
	for (i = 0; i < 3000; i++)
		printf("%04d %05d %088d\\n", n, i, 0)
	if (n == 8)
		exit()
}
''',
}
# Debian's example io/switchfile.stp, run as its .meta says (-T 8)
EXAMPLE = '/usr/share/systemtap/examples/io/switchfile.stp'

TICKS = {'one': 'one\ntick 1\ntick 2\n', '1': 'tick 3\ntick 4\n',
         '2': 'tick 5\ntick 6\n', '3': 'tick 7\nend\n'}
GAPS = {'one': 'first\nbefore\n', '1': 'after\n', '2': 'later\nend\n'}


def big_lines(first, last):
    """Lines first..last-1 of sw_big's output."""
    return ''.join(f'{n:04d} {i:05d} {0:088d}\n'
                   for n in range(1, 9) for i in range(3000))[first * 100:last * 100]


# 4.8's -S 1 splits before the 8100-byte record (81 whole printf lines)
# that would pass 1 MiB: after lines 10458 and 20916 of 24000.
BIG = {'0': big_lines(0, 10458), '1': big_lines(10458, 20916),
       '2': big_lines(20916, 24000)}

# run name -> (module, staprun options, files 4.8 left: name -> content)
RUNS = {
    'ticks_o': ('sw_ticks', '-o out', {
        'out': TICKS['one'], 'out.1': TICKS['1'], 'out.2': TICKS['2'],
        'out.3': TICKS['3']}),
    'ticks_s1': ('sw_ticks', '-o out -S 1', {
        'out.0': TICKS['one'], 'out.1': TICKS['1'], 'out.2': TICKS['2'],
        'out.3': TICKS['3']}),
    'ticks_s12': ('sw_ticks', '-o out -S 1,2', {
        'out.2': TICKS['2'], 'out.3': TICKS['3']}),
    # SIZE 0: no size limit, and the names of plain -o
    'ticks_s0': ('sw_ticks', '-o out -S 0', {
        'out': TICKS['one'], 'out.1': TICKS['1'], 'out.2': TICKS['2'],
        'out.3': TICKS['3']}),
    'gaps_o': ('sw_gaps', '-o out', {
        'out': GAPS['one'], 'out.1': GAPS['1'], 'out.2': GAPS['2']}),
    'usr2_o': ('sw_usr2', '-o out', {
        'out': GAPS['one'], 'out.1': GAPS['1'], 'out.2': GAPS['2']}),
    # FILE is a strftime(3) format (of the local time, UTC in the guest)
    'gaps_time': ('sw_gaps', "-o 'o%%_%Y.txt'", {
        'o%_YEAR.txt': GAPS['one'], 'o%_YEAR.txt.1': GAPS['1'],
        'o%_YEAR.txt.2': GAPS['2']}),
    'gaps_time_s12': ('sw_gaps', "-o 'o%%_%Y.txt' -S 1,2", {
        'o%_YEAR.txt.1': GAPS['1'], 'o%_YEAR.txt.2': GAPS['2']}),
    'example': ('sw_example', '-o sw.out', {
        'sw.out': 'Begin logging\n' + 'log data\n' * 5,
        'sw.out.1': 'log data\n' * 2 + 'End logging\n'}),
    # ours with 4 MiB relay buffers (4.8's default is larger): no loss
    'big_s1': ('sw_big', '-s 4 -o out -S 1', {
        'out.0': BIG['0'], 'out.1': BIG['1'], 'out.2': BIG['2']}),
    'big_s12': ('sw_big', '-s 4 -o out -S 1,2', {
        'out.1': BIG['1'], 'out.2': BIG['2']}),
    'big_o': ('sw_big', '-s 4 -o out', {'out': big_lines(0, 24000)}),
}


@pytest.fixture(scope='module')
def results(tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('switchfile')
    builds = {'sw_example': ['-T', '8', EXAMPLE]}
    for name, text in SCRIPTS.items():
        (scratch / f'{name}.stp').write_text(text)
        builds[name] = [f'{name}.stp']
    builds['sw_big'][:0] = ['-DMAXACTION=100000']
    with ThreadPoolExecutor(max_workers=2) as ex:
        list(ex.map(lambda n: build_args(n, builds[n], scratch), builds))
    cmds = [f'mkdir {run} && cd {run} && {STAPRUN} {opts} ../{mod}.ko'
            for run, (mod, opts, _) in RUNS.items()]
    cmds.append(f'{STAPRUN} sw_ticks.ko')   # no -o: switch_file() does nothing
    cmds.append(f'{STAPRUN} sw_usr2.ko')    # nor SIGUSR2
    # an output file that cannot be opened: 4.8's error; the module is
    # unloaded (it loads again right after)
    cmds.append(f'cd ticks_o && {STAPRUN} -o nodir/out ../sw_ticks.ko; '
                f'echo rc=$?; {STAPRUN} -o /dev/null ../sw_ticks.ko')
    batch = guest.run_batch(cmds, scratch=str(scratch), timeout=40, cpus=1)
    guest.check_kernel_healthy(batch)
    files = {run: {f.replace(time.strftime('%Y', time.gmtime()), 'YEAR'):
                   (scratch / run / f).read_text()
                   for f in sorted(os.listdir(scratch / run))}
             for run in RUNS}
    return batch, files, scratch


@pytest.mark.parametrize('run', list(RUNS))
def test_output_files_as_48(results, run):
    batch, files, _ = results
    r = batch[list(RUNS).index(run)]
    assert (r.rc, r.stdout, r.stderr) == (0, '', '')
    assert sorted(files[run]) == sorted(RUNS[run][2])
    for name, text in RUNS[run][2].items():
        assert files[run][name] == text, name


def test_switch_file_without_output_file(results):
    r = results[0][len(RUNS)]
    assert (r.rc, r.stderr) == (0, '')
    assert r.stdout == ''.join(TICKS.values())


def test_sigusr2_without_output_file(results):
    r = results[0][len(RUNS) + 1]
    assert (r.rc, r.stderr) == (0, '')
    assert r.stdout == ''.join(GAPS.values())


def test_output_file_cannot_be_opened(results):
    r = results[0][len(RUNS) + 2]
    assert (r.rc, r.stdout) == (0, 'rc=1\n')
    assert r.stderr == ("ERROR: Couldn't open output file "
                        f"{results[2]}/ticks_o/nodir/out: No such file or directory\n")


# stap checks -S itself, in pass 1 already (4.8's text, "rc=1" included)
@pytest.mark.parametrize('arg', ['x', '1x', '1,', ',2', '-1', '1,2,3', '',
                                 ' 1', '1,x'])
def test_stap_bad_size_option(arg):
    r = run_stap(['-S', arg, '-p1', '-e', 'probe begin {}'])
    assert (r.returncode, r.stdout) == (1, '')
    assert r.stderr == ("ERROR: Safety pattern mismatch for -S parameter "
                        f"('{arg}' vs. '^[0-9]+(,[0-9]+)?$') rc=1\n")


@pytest.mark.parametrize('arg', ['1', '1,2', '0', '0,0', '4095,100'])
def test_stap_good_size_option(arg):
    r = run_stap(['-S', arg, '-p1', '-e', 'probe begin {}'])
    assert (r.returncode, r.stderr) == (0, '')


@pytest.mark.parametrize('args,err', [
    (['-o', 'out', '-S', 'x'], "ERROR: Invalid file size option 'x'.\n"),
    (['-S', '1x', '-o', 'out'], "ERROR: Invalid file size option '1x'.\n"),
    (['-S', '1,x'], "ERROR: Invalid file size option '1,x'.\n"),
    (['-S', '1'], "ERROR: You have to specify output FILE with '-S' option.\n"),
    (['-S', '2,3'], "ERROR: You have to specify output FILE with '-S' option.\n"),
])
def test_staprun_bad_size_option(tools, tmp_path, args, err):
    """As 4.8's staprun: the error on stderr, the usage on stdout, status
    1, before the module is even read."""
    r = subprocess.run([str(STAPRUN)] + args + [str(tmp_path / 'none.ko')],
                       capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (1, err)
    assert r.stdout.startswith('Usage: staprun ')


FAKE_STAPRUN = '#!/bin/sh\necho "staprun $*"\n'


def test_stap_passes_size_option_to_staprun(tools, krel, tmp_path):
    fake = tmp_path / 'fake-staprun'
    fake.write_text(FAKE_STAPRUN)
    fake.chmod(0o755)
    r = subprocess.run([str(STAP), '-r', krel, '-m', 'swpass', '-o', 'o.txt',
                        '-S', '2,5', '-e', 'probe begin { switch_file() }'],
                       cwd=tmp_path, capture_output=True, text=True,
                       env=dict(os.environ, SYSTEMTAP_STAPRUN=str(fake)))
    assert (r.returncode, r.stderr) == (0, '')
    ko = r.stdout.split()[-1]
    assert r.stdout == f'staprun -o o.txt -S 2,5 {ko}\n'
    assert ko.endswith('/swpass.ko')
