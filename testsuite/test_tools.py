# The helper tools installed beside stap: stap-prep (the Debian packages a
# kernel needs) and stap-report (what a bug report needs), run from the
# build tree.
import subprocess

from conftest import REPO

PREP = REPO / 'staprun' / 'stap-prep'
REPORT = REPO / 'staprun' / 'stap-report'


def run(argv):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True)


def test_stap_prep_dry_run(krel):
    r = run([PREP, '-n', '9.9.9-nosuch'])
    assert (r.returncode, r.stderr) == (0, '')
    assert r.stdout == ('linux-headers-9.9.9-nosuch: missing\n'
                        'linux-image-9.9.9-nosuch-dbg: missing\n'
                        'stap-prep: would run: apt-get install -y '
                        'linux-headers-9.9.9-nosuch linux-image-9.9.9-nosuch-dbg\n')
    # setup.sh installs the guest kernel's headers
    r = run([PREP, '-n', '--no-debuginfo', krel])
    assert (r.returncode, r.stdout) == (
        0, f'linux-headers-{krel}: installed\nstap-prep: kernel {krel} is ready\n')
    r = run([PREP, '-x'])
    assert (r.returncode, r.stderr) == (
        1, 'Usage: stap-prep [-n|--dry-run] [--no-debuginfo] [KVER]\n')


def test_stap_report():
    r = run([REPORT])
    assert r.returncode == 0
    out = r.stdout
    for section in ('== tools', '== kernel', '== headers and debuginfo',
                    '== loaded stap modules'):
        assert f'\n{section}\n' in out
    assert 'stap 0.1.0, a SystemTap-compatible tracer' in out
    assert '$ uname -a\nLinux ' in out
    assert '\nmodule support: ' in out and '\nBTF: ' in out
