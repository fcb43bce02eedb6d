# systemtap-service (issue 18): scripts compiled for the guest's kernel on
# the host (`compile -r KVER`), then started, listed and stopped in the
# guest by calling the script directly (what systemtap.service runs at boot
# and shutdown), with a dependency (_REQ), -R, an -o script run in the
# background and a detached one (staprun -L).
import subprocess

import guest
from conftest import REPO

SVC = REPO / 'staprun' / 'systemtap-service'
ONE = '''global n
probe begin { printf("one begin\\n") }
probe timer.ms(100) { n++ }
probe end { printf("one end %d\\n", n > 0) }
'''
TWO = 'probe begin { printf("two begin\\n") }\n'


def test_service_start_status_stop(tools, tmp_path):
    krel = guest.kernel_release()
    (tmp_path / 'script.d').mkdir()
    (tmp_path / 'conf.d').mkdir()
    (tmp_path / 'script.d' / 'one.stp').write_text(ONE)
    (tmp_path / 'script.d' / 'two.stp').write_text(TWO)
    (tmp_path / 'conf.d' / 'g.conf').write_text(
        f'one_OPT="-o {tmp_path}/one.out"\ntwo_REQ="one"\n')
    (tmp_path / 'cfg').write_text(
        f'SCRIPT_PATH={tmp_path}/script.d\nCONFIG_PATH={tmp_path}/conf.d\n'
        f'CACHE_PATH={tmp_path}/cache\nSTAT_PATH={tmp_path}/stat\n'
        f'LOG_FILE={tmp_path}/log\nAUTOCOMPILE=no\n')
    r = subprocess.run([str(SVC), 'compile', '-c', 'cfg', '-r', krel, '-y'],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / 'cache' / krel).iterdir()) == \
        ['one.ko', 'one.opts', 'two.ko', 'two.opts']
    r = subprocess.run([str(SVC), 'status', '-c', 'cfg'], cwd=tmp_path,
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout) == \
        (3, 'one is stopped\ntwo is stopped\n  requires: one\n')
    s = f'{SVC} '
    mods = "grep -c '^one \\|^two ' /proc/modules"
    cmds = [
        s + 'start -c cfg two',                       # one is not running
        s + 'start -c cfg -R two; echo rc=$?; ' + s + 'status -c cfg; echo rc=$?; ' + mods,
        s + 'start -c cfg; echo rc=$?; ' + mods,         # both run already
        'sleep 1; ' + s + 'stop -c cfg; echo rc=$?; ' + s + 'status -c cfg; '
        'echo rc=$?; ' + mods + '; cat one.out; ls stat | wc -l',
        s + 'onboot -c cfg',
    ]
    batch = guest.run_batch(cmds, scratch=str(tmp_path), timeout=60)
    guest.check_kernel_healthy(batch)
    assert (batch[0].rc, batch[0].stderr) == (1, 'two: it requires one, which is not running\n')
    assert batch[1].stdout == ('rc=0\none is running...\ntwo is running...\n'
                               '  requires: one\nrc=0\n2\n'), batch[1].stderr
    assert batch[2].stdout == 'rc=0\n2\n', batch[2].stderr
    assert batch[3].stdout == ('rc=0\none is stopped\ntwo is stopped\n  requires: one\n'
                               'rc=3\n0\none begin\none end 1\n0\n'), batch[3].stderr
    assert batch[4].rc == 1 and 'dracut' in batch[4].stderr
    # the log has the first refusal and the flight recorder's detach message
    log = (tmp_path / 'log').read_text()
    assert 'two: it requires one, which is not running' in log
    assert 'To reconnect, type "staprun -A two"' in log


def test_service_usage_and_unit(tmp_path):
    r = subprocess.run([str(SVC)], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith('Usage: ')
    r = subprocess.run([str(SVC), 'start', '-c', str(tmp_path / 'none')],
                       capture_output=True, text=True)
    assert r.returncode == 1 and 'cannot read the configuration file' in r.stderr
    unit = (REPO / 'staprun' / 'systemtap.service.in').read_text()
    assert 'ExecStart=@sbindir@/systemtap-service start\n' in unit
    assert 'ExecStop=@sbindir@/systemtap-service stop\n' in unit
    assert 'WantedBy=multi-user.target\n' in unit
