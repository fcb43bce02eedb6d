# Tests of the QEMU test-guest harness (guest.py, guest-run).  Every test
# really boots the guest (about 2-4 s each under TCG); nothing is skipped.

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

HERE = Path(__file__).resolve().parent

HELLO_C = r'''
#include <linux/module.h>
#include <linux/init.h>
static int __init hello_init(void) { pr_info("stap-guest-hello: loaded\n"); return 0; }
static void __exit hello_exit(void) { pr_info("stap-guest-hello: unloaded\n"); }
module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
'''


@pytest.fixture(scope='module')
def vm():
    return guest.Guest()


def test_boot_files_are_cached_and_rebuilt_when_stale(tmp_path):
    vm = guest.Guest(cache_dir=tmp_path)
    vm.prepare()
    assert vm.vmlinux.read_bytes()[:4] == b'\x7fELF'
    assert vm.initramfs.read_bytes()[:6] == b'070701'
    built = vm.vmlinux.stat().st_mtime_ns
    vm.prepare()
    assert vm.vmlinux.stat().st_mtime_ns == built
    (tmp_path / 'stamp.json').write_text('{}')
    vm.prepare()
    assert vm.vmlinux.stat().st_mtime_ns != built


def test_kernel_release_is_installed_debian_61():
    release = guest.kernel_release()
    assert release.startswith('6.1.0-') and release.endswith('-amd64')
    assert Path(f'/boot/vmlinuz-{release}').exists()


def test_commands_in_one_boot(vm, tmp_path):
    (tmp_path / 'from-host').write_text('host data\n')
    batch = vm.run_batch([
        'echo hi',
        'echo oops >&2; exit 3',
        'uname -r',
        'pwd',
        'cat from-host && echo guest data > from-guest',
        'touch /usr/stap-guest-test',
        'id -u; echo "$HOME $PATH"',
        'echo "$GREETING"',
        'grep "^9p " /proc/modules | cut -d" " -f1',
        'grep -c "^debugfs /sys/kernel/debug debugfs" /proc/mounts',
        'test -w /tmp && test -w /root && test -w /var/tmp',
        'grep " T _stext$" /proc/kallsyms',
    ], scratch=tmp_path, env={'GREETING': "it's a guest"}, timeout=20)
    out = [r.stdout for r in batch]
    assert [r.rc for r in batch] == [0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert out[0] == 'hi\n' and batch[0].stderr == ''
    assert batch[1].stderr == 'oops\n'
    assert out[2] == guest.kernel_release() + '\n'
    assert out[3] == f'{os.path.realpath(tmp_path)}\n'
    assert out[4] == 'host data\n'
    assert (tmp_path / 'from-guest').read_text() == 'guest data\n'
    assert 'Read-only file system' in batch[5].stderr
    assert out[6] == ('0\n/root /usr/local/sbin:/usr/local/bin:/usr/sbin:'
                      '/usr/bin:/sbin:/bin\n')
    assert out[7] == "it's a guest\n"
    assert out[8] == '9p\n'
    assert out[9] == '1\n'
    assert out[11] == 'ffffffff81000000 T _stext\n'  # nokaslr
    assert batch.tainted == 0
    assert 'Linux version ' + guest.kernel_release() in batch.dmesg
    guest.check_kernel_healthy(batch)


def test_timeout_kills_one_command_and_the_batch_goes_on(vm, tmp_path):
    start = time.monotonic()
    batch = vm.run_batch(['echo before', 'echo started; sleep 60', 'echo after'],
                         scratch=tmp_path, timeout=3)
    assert time.monotonic() - start < 30
    assert (batch[0].rc, batch[0].stdout, batch[0].timed_out) == (0, 'before\n', False)
    assert (batch[1].rc, batch[1].stdout, batch[1].timed_out) == (None, 'started\n', True)
    assert (batch[2].rc, batch[2].stdout) == (0, 'after\n')


def test_kernel_panic_is_reported_with_console(vm, tmp_path):
    start = time.monotonic()
    with pytest.raises(guest.GuestDied) as died:
        vm.run_batch(['echo before', 'echo c > /proc/sysrq-trigger', 'echo never'],
                     scratch=tmp_path, timeout=30)
    assert time.monotonic() - start < 30
    message = str(died.value)
    assert 'Kernel panic - not syncing: sysrq triggered crash' in message
    assert "'echo c > /proc/sysrq-trigger'" in message
    batch = died.value.batch
    assert (batch[0].rc, batch[0].stdout) == (0, 'before\n')
    assert batch[1].rc is None and batch[2].rc is None
    with pytest.raises(guest.KernelUnhealthy):
        guest.check_kernel_healthy(batch)


def test_hung_guest_is_killed_by_host_timeout(vm, tmp_path):
    start = time.monotonic()
    with pytest.raises(guest.GuestDied) as died:
        vm.run_batch(['sleep 100'], scratch=tmp_path, timeout=100,
                     total_timeout=5)
    assert time.monotonic() - start < 5 + 10
    assert '5 s host-side timeout' in str(died.value)


def build_hello_module(directory):
    (directory / 'hello.c').write_text(HELLO_C)
    (directory / 'Makefile').write_text('obj-m := hello.o\n')
    subprocess.run(['make', '-s', '-C', f'/lib/modules/{guest.kernel_release()}/build',
                    f'M={directory}', 'modules'], check=True, capture_output=True)
    return directory / 'hello.ko'


def test_module_built_on_host_loads_in_guest(vm, tmp_path):
    module = build_hello_module(tmp_path)
    batch = vm.run_batch([f'insmod {module}',
                          'grep -c "^hello " /proc/modules',
                          'rmmod hello',
                          'dmesg | grep -o "stap-guest-hello: .*"'],
                         scratch=tmp_path, timeout=20)
    assert [r.rc for r in batch] == [0, 0, 0, 0], batch
    assert batch[1].stdout == '1\n'
    assert batch[3].stdout == 'stap-guest-hello: loaded\nstap-guest-hello: unloaded\n'
    assert batch.tainted == guest.EXPECTED_TAINT  # unsigned out-of-tree: O|E
    guest.check_kernel_healthy(batch)


def test_check_kernel_healthy_rejects_warnings_and_taint():
    clean = guest.Batch([], console='', dmesg='hello\n', tainted=guest.EXPECTED_TAINT,
                        elapsed=0, qemu_rc=0)
    guest.check_kernel_healthy(clean)
    warned = guest.Batch([], console='', dmesg='WARNING: CPU: 0 PID: 1 at x.c:1\n',
                         tainted=0, elapsed=0, qemu_rc=0)
    with pytest.raises(guest.KernelUnhealthy, match='WARNING'):
        guest.check_kernel_healthy(warned)
    tainted = guest.Batch([], console='', dmesg='', tainted=512 | 4096,
                          elapsed=0, qemu_rc=0)
    with pytest.raises(guest.KernelUnhealthy, match='taint 4608'):
        guest.check_kernel_healthy(tainted)


def test_debug_kernel_gets_enough_memory(tmp_path, monkeypatch):
    """KASAN's shadow needs more than the default 256 MB to boot: a guest
    of the debug kernel ($STAP_GUEST_KERNEL) gets at least DEBUG_MEMORY_MB,
    more when asked, and the normal kernel what is asked (no boot here:
    QEMU's argv is recorded and the guest reported dead)."""
    (tmp_path / 'done').write_text('6.1.192-test\n')
    (tmp_path / 'bzImage').write_bytes(b'')
    argvs = []

    def fake_run(argv, **kwargs):
        argvs.append(argv)
        return subprocess.CompletedProcess(argv, 1, b'', b'')

    monkeypatch.setattr(guest.subprocess, 'run', fake_run)
    monkeypatch.setattr(guest.Guest, 'prepare', lambda self: None)
    normal = guest.Guest(cache_dir=tmp_path / 'normal')
    monkeypatch.setenv(guest.DEBUG_KERNEL_ENV, str(tmp_path))
    debug = guest.Guest(cache_dir=tmp_path / 'debug')
    assert (normal.debug, debug.debug) == (False, True)
    for vm, asked, given in [(debug, 256, 768), (debug, 1024, 1024), (normal, 256, 256)]:
        with pytest.raises(guest.GuestDied):
            vm.run_batch(['true'], memory_mb=asked)
        argv = argvs.pop()
        assert argv[argv.index('-m') + 1] == str(given)


def test_guest_run_cli(tmp_path):
    proc = subprocess.run([str(HERE / 'guest-run'), '--timeout', '20',
                           '--scratch', str(tmp_path), '--',
                           'echo one', 'echo two >&2; echo x > f', 'exit 5'],
                          capture_output=True, text=True)
    assert proc.returncode == 5
    assert proc.stdout == 'one\n'
    assert 'two\n' in proc.stderr and '=== exit status 5' in proc.stderr
    assert (tmp_path / 'f').read_text() == 'x\n'


def test_guest_run_cli_reports_dead_guest():
    proc = subprocess.run([str(HERE / 'guest-run'), '--',
                           'echo c > /proc/sysrq-trigger'],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert 'guest died' in proc.stderr and 'Kernel panic' in proc.stderr
