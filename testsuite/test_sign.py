# Module signing (stap --sign-module[=KEYDIR]): the module is signed with
# the kernel tree's sign-file and a key made once in KEYDIR, modinfo shows
# the signer; a kernel that enforces signatures (module.sig_enforce, set
# at run time in the guest) refuses an unsigned module and one signed by a
# key it does not trust, each with staprun's own clear error.
import subprocess

import guest
from conftest import STAPRUN, run_stap

HELLO = 'probe begin { println("{}"); exit() }'


def modinfo(ko, field):
    return subprocess.run(['/usr/sbin/modinfo', '-F', field, str(ko)],
                          capture_output=True, text=True).stdout


def test_signed_modules(krel, tmp_path):
    keys = tmp_path / 'keys'
    for name in ('signed', 'signed2'):
        r = run_stap(['-p4', '-r', krel, '-m', name, f'--sign-module={keys}',
                      '-e', HELLO.replace('{}', name)], cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in keys.iterdir()) == ['signing_key.priv', 'signing_key.x509']
    assert (keys / 'signing_key.priv').stat().st_mode & 0o077 == 0
    assert modinfo(tmp_path / 'signed.ko', 'signer') == 'stap module signing key\n'
    assert modinfo(tmp_path / 'signed.ko', 'sig_hashalgo') == 'sha256\n'
    # the key is made once: both modules carry the same one
    assert modinfo(tmp_path / 'signed.ko', 'sig_key') == \
        modinfo(tmp_path / 'signed2.ko', 'sig_key') != ''
    r = run_stap(['-p4', '-r', krel, '-m', 'unsigned', '-e', HELLO.replace('{}', 'u')],
                 cwd=tmp_path)
    assert r.returncode == 0 and modinfo(tmp_path / 'unsigned.ko', 'signer') == ''
    b = guest.run_batch([f'{STAPRUN} signed.ko',
                         'echo 1 > /sys/module/module/parameters/sig_enforce',
                         f'{STAPRUN} unsigned.ko', f'{STAPRUN} signed2.ko',
                         'grep -c "^signed\\|^unsigned" /proc/modules'],
                        scratch=str(tmp_path))
    guest.check_kernel_healthy(b)
    assert (b[0].rc, b[0].stdout) == (0, 'signed\n')
    assert (b[2].rc, b[2].stdout, b[2].stderr) == (
        1, '', "ERROR: the kernel takes only signed modules (module.sig_enforce or lockdown), "
        "and 'unsigned.ko' is not signed: build it with stap --sign-module and enroll its "
        "key (mokutil --import KEYDIR/signing_key.x509)\n")
    assert (b[3].rc, b[3].stdout, b[3].stderr) == (
        1, '', "ERROR: the kernel takes only signed modules (module.sig_enforce or lockdown), "
        "and does not trust the key 'signed2.ko' is signed with: enroll it (mokutil "
        "--import KEYDIR/signing_key.x509, then reboot) or sign with a key the kernel "
        "trusts\n")
    assert b[4].stdout == '0\n'	# nothing left loaded
