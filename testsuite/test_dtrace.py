# dtrace -h / -G (issue 18): SDT headers and semaphore objects from a DTrace
# provider file, as SystemTap 4.8's /usr/bin/dtrace makes them: the header
# compared with 4.8's byte for byte (run on the host), the object's
# semaphores, and a program built with them whose marks are probed in the
# guest. 4.8's output for the same program and script (its stap -p4 with
# -r/-R for the guest's kernel, its staprun in the guest, measured):
#   start 0 ./app / tick 100 / start 1 ./app / tick 101 / start 2 ./app /
#   tick 102 / done done myapp / with__dunder 7 ./app
import subprocess

import pytest

import guest
from conftest import REPO, STAPRUN, build_args

DTRACE = REPO / 'staprun' / 'dtrace'
UPSTREAM = '/usr/bin/dtrace'

PROV = '''/* a provider */
provider myapp {
	probe start(int, char *);   // a counter and a name
	probe tick(long);
	probe done();
	probe with__dunder(int x, const char *name);
};
'''
# with the preprocessor (-C): a macro and an include path
PROV_CPP = '''#include "types.h"
provider other {
	probe go(COUNT_T n, struct s *p, unsigned long long v);
	probe nothing(void);
};
'''
APP = r'''#include "prov.h"
int main(int argc, char **argv)
{
	for (int i = 0; i < 3; i++) {
		if (MYAPP_START_ENABLED())
			MYAPP_START(i, argv[0]);
		MYAPP_TICK(100L + i);
	}
	MYAPP_DONE();
	MYAPP_WITH_DUNDER(7, argv[0]);
	return 0;
}
'''
SCRIPT = '''probe process(@1).mark("start") { printf("start %d %s\\n", $arg1, user_string($arg2)) }
probe process(@1).mark("tick") { printf("tick %d\\n", $arg1) }
probe process(@1).mark("done") { printf("done %s %s\\n", $$name, $$provider) }
probe process(@1).mark("with__dunder") { printf("%s %d %s\\n", $$name, $arg1, user_string($arg2)) }
'''
UPSTREAM_OUT = ('start 0 ./app\ntick 100\nstart 1 ./app\ntick 101\nstart 2 ./app\n'
                'tick 102\ndone done myapp\nwith__dunder 7 ./app\n')


def dtrace(tool, args, cwd):
    return subprocess.run([str(tool)] + args, cwd=cwd, capture_output=True, text=True)


def test_header_as_4_8(tmp_path):
    (tmp_path / 'p.d').write_text(PROV)
    up = dtrace(UPSTREAM, ['-h', '-s', 'p.d', '-o', 'up.h'], tmp_path)
    assert up.returncode == 0, up.stderr
    ours = dtrace(DTRACE, ['-h', '-s', 'p.d'], tmp_path)   # default: p.h
    assert (ours.returncode, ours.stdout, ours.stderr) == (0, '', '')
    assert (tmp_path / 'p.h').read_text() == (tmp_path / 'up.h').read_text()


def test_header_through_cpp(tmp_path):
    # -C: cpp first (4.8's parser fails on cpp's line markers and falls
    # back to a mode that keeps the text as written and counts (void) as
    # one argument; ours parses the same as without -C)
    (tmp_path / 'p.d').write_text(PROV_CPP)
    (tmp_path / 'inc').mkdir()
    (tmp_path / 'inc' / 'types.h').write_text('#define COUNT_T int\n')
    r = dtrace(DTRACE, ['-C', '-Iinc', '-h', '-s', 'p.d', '-o', 'o.h'], tmp_path)
    assert r.returncode == 0, r.stderr
    h = (tmp_path / 'o.h').read_text()
    assert ('/* OTHER_GO ( int n, struct s * p, unsigned long long v ) */\n' in h)
    assert ('#define OTHER_GO(arg1, arg2, arg3) \\\n'
            'DTRACE_PROBE3 (other, go, arg1, arg2, arg3)\n' in h)
    assert '#define OTHER_NOTHING() \\\nDTRACE_PROBE (other, nothing)\n' in h
    assert 'extern unsigned short other_nothing_semaphore' in h


def test_object_defines_hidden_semaphores(tmp_path):
    (tmp_path / 'p.d').write_text(PROV)
    r = dtrace(DTRACE, ['-G', '-s', 'p.d'], tmp_path)           # default: p.o
    assert r.returncode == 0, r.stderr
    syms = subprocess.run(['readelf', '-sW', str(tmp_path / 'p.o')],
                          capture_output=True, text=True).stdout
    sems = sorted(line.split()[-1] for line in syms.splitlines() if 'semaphore' in line)
    assert sems == ['myapp_done_semaphore', 'myapp_start_semaphore',
                    'myapp_tick_semaphore', 'myapp_with__dunder_semaphore']
    for line in syms.splitlines():
        if 'semaphore' in line:
            assert line.split()[3:6] == ['OBJECT', 'GLOBAL', 'HIDDEN'], line
    sections = subprocess.run(['objdump', '-h', str(tmp_path / 'p.o')],
                              capture_output=True, text=True).stdout
    assert '.probes ' in sections


def test_usage_and_errors(tmp_path):
    r = dtrace(DTRACE, ['--help'], tmp_path)
    assert r.returncode == 0 and r.stdout.startswith('Usage ')
    assert '-G builds a stub file.o from file.d' in r.stdout
    r = dtrace(DTRACE, ['-h'], tmp_path)
    assert r.returncode == 1 and r.stderr.startswith('Usage ')
    r = dtrace(DTRACE, ['-h', '-s', 'none.d'], tmp_path)
    assert r.returncode == 1 and "cannot read 'none.d'" in r.stderr


def test_marks_of_a_program_built_with_dtrace(tools, tmp_path):
    (tmp_path / 'prov.d').write_text(PROV)
    (tmp_path / 'app.c').write_text(APP)
    for args in (['-h', '-s', 'prov.d'], ['-G', '-s', 'prov.d']):
        r = dtrace(DTRACE, args, tmp_path)
        assert r.returncode == 0, r.stderr
    subprocess.run(['gcc', '-O0', '-g', 'app.c', 'prov.o', '-o', 'app'], cwd=tmp_path,
                   check=True)
    (tmp_path / 'm.stp').write_text(SCRIPT)
    build_args('dtmarks', ['m.stp', str(tmp_path / 'app')], tmp_path)
    batch = guest.run_batch([f'{STAPRUN} -c ./app dtmarks.ko'], scratch=str(tmp_path),
                            timeout=60)
    guest.check_kernel_healthy(batch)
    r = batch[0]
    assert (r.rc, r.stdout, r.stderr) == (0, UPSTREAM_OUT, '')
