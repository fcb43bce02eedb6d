# perf probes end to end: perf.type(T).config(C) with .sample(N) and
# .hz(F), the perf.sw.*/perf.hw.* aliases of tapsets/perf.stp, and
# timer.profile (a cpu-clock perf event on every CPU, as 4.8 makes it on
# kernels without the old timer hook). The guest (TCG) has no hardware
# PMU, so perf.hw.* fails to register: an error that ends the script, `?`
# or not, as under 4.8. Expected outputs are what Debian's SystemTap 4.8
# printed for the same scripts in the same guest.
import pytest

from conftest import run_case_table, run_stap

CASES = {
    'perf1': ('global n probe perf.sw.cpu_clock.sample(1000000) { n <<< 1 } probe timer.ms(300) { println(@count(n) > 10); exit() }',
        '1\n', 0, ''),
    'perf2': ('global n, c probe timer.profile { n[cpu()] <<< 1 } probe perf.sw.context_switches.sample(1) { c++ } probe timer.ms(300) { foreach (k in n) t += @count(n[k]); println(t > 10, " ", c > 0); exit() }',
        '1 1\n', 0, ''),
    'perf3': ('probe perf.hw.cpu_cycles { println(1) } probe begin { println("b") } probe timer.ms(100) { exit() }',
        'b\n', 1, 'ERROR: probe perf.type(0).config(0).sample(1000000) registration error [man warning::pass5] (rc -2)\n'),
    'perf4': ('probe perf.type(1).config(0).hz(1000) { printf("%s|%s\\n", pp(), pn()); exit() }',
        'perf.type(1).config(0).sample(1000)|perf.type(1).config(0).hz(1000)\n', 0, ''),
    'perf5': ('probe perf.hw.instructions? { println(1) } probe begin { println("b") } probe timer.ms(100) { exit() }',
        'b\n', 1, 'ERROR: probe perf.type(0).config(1).sample(1000000) registration error [man warning::pass5] (rc -2)\n'),
}


@pytest.fixture(scope='module')
def run(krel, tmp_path_factory):
    return run_case_table(CASES, krel, tmp_path_factory.mktemp('perf'))


@pytest.mark.parametrize('name', list(CASES))
def test_perf(run, name):
    assert run[name] == CASES[name][1:]


def test_perf_listing(krel):
    r = run_stap(['-p2', '-r', krel, '-e',
                  'probe perf.sw.cpu_clock.sample(100000), perf.type(1).config(0).hz(100),'
                  ' timer.profile { println(1) }'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        '# probes\n'
        'perf.type(1).config(0).sample(100000) /* <- perf.sw.cpu_clock = perf.type(1).config(0)'
        ' <- perf.sw.cpu_clock.sample(100000),perf.type(1).config(0).hz(100),timer.profile */\n'
        'perf.type(1).config(0).sample(100) /* <- perf.sw.cpu_clock.sample(100000),'
        'perf.type(1).config(0).hz(100),timer.profile */\n'
        'perf.type(1).config(0).sample(1000000) /* <- perf.sw.cpu_clock.sample(100000),'
        'perf.type(1).config(0).hz(100),timer.profile */\n')
    r = run_stap(['-l', 'perf.sw.*'])
    assert r.stdout.split() == [
        'perf.sw.alignment_faults', 'perf.sw.context_switches', 'perf.sw.cpu_clock',
        'perf.sw.cpu_migrations', 'perf.sw.emulation_faults', 'perf.sw.page_faults',
        'perf.sw.page_faults_maj', 'perf.sw.page_faults_min', 'perf.sw.task_clock']


def test_perf_errors(krel):
    r = run_stap(['-p2', '-r', krel, '-e', 'probe perf.type(1).config(0).sample(0) { }'])
    assert r.returncode == 1
    assert 'error: invalid perf sample period 0' in r.stderr
    r = run_stap(['-p2', '-r', krel, '-e',
                  'probe perf.type(1).config(0).process("/bin/ls") { println(1) }'])
    assert r.returncode == 1
    assert 'error: perf.process probes are not supported by this version yet' in r.stderr
