# Test-guest harness: boots Debian's 6.1 kernel under QEMU with the host root
# shared read-only over virtio-9p and one scratch directory read-write at the
# same path, runs a batch of shell commands as root inside it, and reports each
# command's output and status plus the guest's console, dmesg and taint.
# The host kernel cannot load modules; this guest is where modules get loaded.
# With $STAP_GUEST_KERNEL naming a testsuite/debug-kernel.sh cache, the guest
# boots that debug kernel instead (its modules installed on the host under
# /lib/modules/RELEASE, as testsuite/debug-campaign.sh does), with longer
# time limits and at least DEBUG_MEMORY_MB of memory.  Recipe and measurements: shared/reference/test-vm.md.
# Stdlib only.

import contextlib
import fcntl
import glob
import json
import os
import re
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

VIRTIO_9P_MODULES = ['virtio_ring', 'virtio', 'virtio_pci_legacy_dev',
                     'virtio_pci_modern_dev', 'virtio_pci', 'netfs', 'fscache',
                     '9pnet', '9pnet_virtio', '9p']
INITRAMFS_APPLETS = ['sh', 'mount', 'mkdir', 'insmod', 'cat', 'chroot', 'sync',
                     'poweroff']
GUEST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
CTL_DIR = '/run/stap-guest'          # control share, as seen inside the chroot
BOOT_ALLOWANCE = 60                  # seconds for boot and power-off
DEBUG_KERNEL_ENV = 'STAP_GUEST_KERNEL'
DEBUG_SLOWDOWN = 4                   # KASAN and lockdep, under TCG
DEBUG_BOOT_ALLOWANCE = 400
DEBUG_MEMORY_MB = 768                # KASAN's shadow: 256 MB does not boot
KILL_GRACE = 5                       # SIGTERM -> SIGKILL delay, both sides
EXPECTED_TAINT = 4096 | 8192         # O (out-of-tree) and E (unsigned module)
BAD_KERNEL_PATTERNS = ['Oops', 'BUG:', 'WARNING:', 'Kernel panic', 'soft lockup',
                       'hard LOCKUP', 'general protection fault', 'Call Trace']
BUSYBOX = Path('/bin/busybox')
XZ_MAGIC = b'\xfd7zXZ\x00'
CONSOLE_TAIL_LINES = 100

# /init of the initramfs.  Outside the chroot only busybox exists; any failure
# powers off, which the host reports as a dead guest with this console text.
INIT_SCRIPT = r'''#!/bin/sh
die() { echo "stap-guest init: $*"; poweroff -f; }
for m in /lib/modules/*.ko; do insmod "$m" || die "insmod $m failed"; done
R=/newroot
p9() { mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,$3 "$1" "$2" \
       || die "cannot mount 9p share $1 on $2"; }
p9 root $R ro,cache=loose
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts devpts $R/dev/pts
for d in tmp run var/tmp root dev/shm; do mount -t tmpfs tmpfs $R/$d; done
mount -t debugfs debugfs $R/sys/kernel/debug
mount -t tracefs tracefs $R/sys/kernel/tracing
mount -t securityfs securityfs $R/sys/kernel/security
mkdir -p $R__CTL__
p9 ctl $R__CTL__ rw
i=0
while read -r d; do
	mkdir -p "$R$d"
	p9 share$i "$R$d" ro
	i=$((i + 1))
done < $R__CTL__/shares
S=$(cat $R__CTL__/scratch)
mkdir -p "$R$S"
p9 scratch "$R$S" rw
chroot $R /bin/sh __CTL__/batch.sh </dev/null
sync
poweroff -f
'''.replace('__CTL__', CTL_DIR)


class GuestDied(Exception):
    """The guest crashed, hung or was killed before finishing the batch.

    .batch holds what was recovered (commands that did not finish have
    rc None); the message ends with the tail of the console log."""

    def __init__(self, message, batch):
        super().__init__(message)
        self.batch = batch


class KernelUnhealthy(AssertionError):
    """The guest kernel reported a problem (oops, warning, lockup, taint)."""


class Result:
    """One command: .command, .stdout, .stderr (str), .rc (int, or None if
    it did not finish), .timed_out (killed by its per-command timeout)."""

    def __init__(self, command, stdout, stderr, rc, timed_out):
        self.command, self.stdout, self.stderr = command, stdout, stderr
        self.rc, self.timed_out = rc, timed_out

    def __repr__(self):
        return (f'Result({self.command!r}, rc={self.rc!r}, '
                f'stdout={self.stdout!r}, stderr={self.stderr!r})')


class Batch(list):
    """The list of Results of one boot, with batch-level information:
    .console (serial log), .dmesg, .tainted (int, None if the guest died),
    .elapsed (seconds for the whole QEMU run), .qemu_rc."""

    def __init__(self, results, console, dmesg, tainted, elapsed, qemu_rc):
        super().__init__(results)
        self.console, self.dmesg, self.tainted = console, dmesg, tainted
        self.elapsed, self.qemu_rc = elapsed, qemu_rc

    def console_tail(self, lines=CONSOLE_TAIL_LINES):
        return '\n'.join(self.console.splitlines()[-lines:])


def debug_kernel():
    """The debug-kernel.sh cache that $STAP_GUEST_KERNEL names, or None."""
    d = os.environ.get(DEBUG_KERNEL_ENV)
    return Path(d) if d else None


def kernel_release():
    """The newest installed Debian 6.1 kernel release, e.g. '6.1.0-56-amd64',
    or the debug kernel's (see debug_kernel())."""
    if debug_kernel():
        return (debug_kernel() / 'done').read_text().strip()
    found = [os.path.basename(p)[len('vmlinuz-'):]
             for p in glob.glob('/boot/vmlinuz-6.1.0-*-amd64')]
    if not found:
        raise FileNotFoundError('no /boot/vmlinuz-6.1.0-*-amd64: '
                                'install linux-image-amd64')
    return max(found, key=lambda rel: int(rel.split('-')[1]))


def check_kernel_healthy(batch):
    """Raise KernelUnhealthy if the console or dmesg of `batch` shows an oops,
    warning, lockup or panic, or the kernel is tainted by anything other than
    loading an unsigned out-of-tree module."""
    bad = [line for line in (batch.console + '\n' + batch.dmesg).splitlines()
           if any(p in line for p in BAD_KERNEL_PATTERNS)]
    if bad:
        raise KernelUnhealthy('guest kernel reported:\n' + '\n'.join(bad[:40]))
    if batch.tainted is None or batch.tainted & ~EXPECTED_TAINT:
        raise KernelUnhealthy(f'guest kernel taint {batch.tainted!r} '
                              f'(only O|E={EXPECTED_TAINT} is expected)')


def run_batch(commands, scratch=None, timeout=60, memory_mb=256, cpus=1,
              env=None, nokaslr=True, total_timeout=None, shares=None,
              cmdline=()):
    """Boot the default Guest once and run `commands`; see Guest.run_batch."""
    return Guest().run_batch(commands, scratch=scratch, timeout=timeout,
                             memory_mb=memory_mb, cpus=cpus, env=env,
                             nokaslr=nokaslr, total_timeout=total_timeout,
                             shares=shares, cmdline=cmdline)


def default_shares():
    """The project's source and build trees: the host root is visible in
    the guest, but not what lies under the guest's own tmpfs mounts (/tmp,
    /run, /var/tmp, /root), where a CI clone may well be."""
    dirs = [Path(__file__).resolve().parent.parent]
    if os.environ.get('STAP_BUILDDIR'):
        dirs.append(Path(os.environ['STAP_BUILDDIR']).resolve())
    return list(dict.fromkeys(str(d) for d in dirs))


class Guest:
    """Boot files for one kernel release, built once and cached in
    $STAP_VM_CACHE or /var/tmp/stap-test-vm/<release>/ (rebuilt when the
    kernel image or this harness's initramfs recipe changes)."""

    def __init__(self, release=None, cache_dir=None):
        self.release = release or kernel_release()
        self.vmlinuz = Path('/boot') / f'vmlinuz-{self.release}'
        self.cache_dir = Path(cache_dir or os.environ.get('STAP_VM_CACHE')
                              or f'/var/tmp/stap-test-vm/{self.release}')
        self.vmlinux = self.cache_dir / 'vmlinux'
        self.initramfs = self.cache_dir / 'initramfs.cpio'
        self.debug = (debug_kernel() is not None
                      and self.release == kernel_release())
        if self.debug:	# QEMU boots its bzImage as it is
            self.vmlinuz = self.vmlinux = debug_kernel() / 'bzImage'

    # --- boot files -------------------------------------------------------

    def prepare(self):
        """Make sure the cached vmlinux and initramfs are current."""
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        with open(self.cache_dir / 'lock', 'w') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            stamp_file = self.cache_dir / 'stamp.json'
            stamp = self._stamp()
            if _read_json(stamp_file) != stamp:
                if not self.debug:
                    _write_atomic(self.vmlinux, _extract_vmlinux(self.vmlinuz))
                _write_atomic(self.initramfs, self._build_initramfs())
                _write_atomic(stamp_file, json.dumps(stamp).encode())

    def _stamp(self):
        """What the cached files were built from; any change rebuilds them."""
        inputs = {str(p): [p.stat().st_size, p.stat().st_mtime_ns]
                  for p in [self.vmlinuz, BUSYBOX]}
        return {'inputs': inputs, 'init': INIT_SCRIPT,
                'modules': VIRTIO_9P_MODULES, 'applets': INITRAMFS_APPLETS}

    def _build_initramfs(self):
        archive = _Cpio()
        for d in ['bin', 'dev', 'proc', 'sys', 'newroot', 'lib', 'lib/modules']:
            archive.directory(d)
        archive.char_device('dev/console', 5, 1)
        archive.char_device('dev/null', 1, 3)
        archive.file('bin/busybox', BUSYBOX.read_bytes(), 0o755)
        for applet in INITRAMFS_APPLETS:
            archive.symlink(f'bin/{applet}', 'busybox')
        archive.file('init', INIT_SCRIPT.encode(), 0o755)
        for i, path in enumerate(self._module_files()):
            archive.file(f'lib/modules/{i:02d}-{path.name.split(".")[0]}.ko',
                         _read_module(path), 0o644)
        return archive.finish()

    def _module_files(self):
        """Paths of VIRTIO_9P_MODULES in load order, from modules.dep."""
        moddir = Path('/lib/modules') / self.release
        by_name = {}
        for line in (moddir / 'modules.dep').read_text().splitlines():
            rel = line.split(':', 1)[0]
            by_name[Path(rel).name.split('.')[0].replace('-', '_')] = rel
        missing = [m for m in VIRTIO_9P_MODULES if m not in by_name]
        if missing:
            raise FileNotFoundError(f'modules not in {moddir}/modules.dep: '
                                    f'{missing}')
        return [moddir / by_name[m] for m in VIRTIO_9P_MODULES]

    # --- running ----------------------------------------------------------

    def run_batch(self, commands, scratch=None, timeout=60, memory_mb=256,
                  cpus=1, env=None, nokaslr=True, total_timeout=None,
                  shares=None, cmdline=()):
        """Boot once and run each shell string of `commands` in turn with
        /bin/sh, as root, in the chroot of the host root, cwd = scratch.

        scratch: host directory mounted read-write at the same path in the
          guest (a temporary one, deleted afterwards, if None).
        timeout: per-command seconds; a command past it is killed, gets
          rc None and timed_out True, and the next command runs.
        env: extra environment variables for the commands (PATH and HOME are
          the usual root ones).
        total_timeout: host-side limit for the whole QEMU run; by default
          boot allowance plus every command's timeout.
        shares: host directories mounted read-only at the same paths after
          the guest's tmpfs mounts (default: default_shares()).
        cmdline: extra kernel command-line arguments (e.g.
          ['module.sig_enforce=1']), appended to the harness's own.
        memory_mb: the guest's memory; the debug kernel gets at least
          DEBUG_MEMORY_MB.
        Returns a Batch; raises GuestDied if the guest did not finish it."""
        self.prepare()
        commands = list(commands)
        boot = BOOT_ALLOWANCE
        if self.debug:
            timeout *= DEBUG_SLOWDOWN
            boot = DEBUG_BOOT_ALLOWANCE
            memory_mb = max(memory_mb, DEBUG_MEMORY_MB)
            total_timeout = total_timeout and total_timeout * DEBUG_SLOWDOWN
        if total_timeout is None:
            total_timeout = boot + len(commands) * (timeout + KILL_GRACE)
        with tempfile.TemporaryDirectory(prefix='stap-guest-') as ctl, \
                _scratch_dir(scratch) as scratch_path:
            ctl = Path(ctl)
            if shares is None:
                shares = default_shares()
            _write_control(ctl, commands, scratch_path, timeout, env or {})
            (ctl / 'shares').write_text(''.join(f'{d}\n' for d in shares))
            argv = self._qemu_argv(ctl, scratch_path, memory_mb, cpus, nokaslr,
                                   cmdline)
            for i, d in enumerate(shares):
                argv += _virtfs(f'share{i}', d, readonly=True)
            start = time.monotonic()
            proc = subprocess.run(
                ['timeout', f'--kill-after={KILL_GRACE}', str(total_timeout)]
                + argv, stdin=subprocess.DEVNULL, capture_output=True)
            elapsed = time.monotonic() - start
            batch = _collect(ctl, commands, elapsed, proc.returncode)
        _raise_if_died(batch, proc, total_timeout)
        return batch

    def _qemu_argv(self, ctl, scratch, memory_mb, cpus, nokaslr, cmdline=()):
        # no_timer_check: under TCG on a loaded host the IO-APIC timer
        # check can time out and panic the boot ("timer doesn't work")
        append = 'console=ttyS0 quiet panic=-1 oops=panic no_timer_check'
        if nokaslr:
            append += ' nokaslr'
        for arg in cmdline:
            if not arg or any(c.isspace() for c in arg):
                raise ValueError(f'kernel argument {arg!r}: one word each')
            append += ' ' + arg
        return (['qemu-system-x86_64', '-machine', 'q35',
                 '-bios', '/usr/share/qemu/qboot.rom']
                + _accel_args()
                + ['-m', str(memory_mb), '-smp', str(cpus),
                   '-nodefaults', '-display', 'none', '-net', 'none',
                   '-no-reboot',
                   '-kernel', str(self.vmlinux), '-initrd', str(self.initramfs),
                   '-append', append,
                   '-serial', f'file:{ctl / "console.log"}']
                + _virtfs('root', '/', readonly=True)
                + _virtfs('ctl', ctl)
                + _virtfs('scratch', scratch))


# --- helpers: boot files ----------------------------------------------------

def _extract_vmlinux(vmlinuz):
    """The uncompressed ELF vmlinux inside a bzImage with an xz payload."""
    data = vmlinuz.read_bytes()
    offset = data.find(XZ_MAGIC)
    while offset >= 0:
        proc = subprocess.run(['xz', '-dc', '--single-stream'],
                              input=data[offset:], capture_output=True)
        if proc.stdout[:4] == b'\x7fELF':
            return proc.stdout
        offset = data.find(XZ_MAGIC, offset + 1)
    raise RuntimeError(f'no xz-compressed ELF kernel found in {vmlinuz}')


def _read_module(path):
    if path.suffix == '.xz':
        return subprocess.run(['xz', '-dc', str(path)], check=True,
                              capture_output=True).stdout
    return path.read_bytes()


class _Cpio:
    """A minimal writer of 'newc' cpio archives, all entries owned by root."""

    def __init__(self):
        self.parts, self.ino = [], 1

    def _entry(self, name, mode, data=b'', rdev=(0, 0)):
        fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0],
                  rdev[1], len(name) + 1, 0]
        self.ino += 1
        header = b'070701' + b''.join(b'%08X' % f for f in fields)
        self.parts += [header, name.encode(), b'\0', _pad(len(header) + len(name) + 1),
                       data, _pad(len(data))]

    def directory(self, name):
        self._entry(name, 0o040755)

    def file(self, name, data, perm):
        self._entry(name, 0o100000 | perm, data)

    def symlink(self, name, target):
        self._entry(name, 0o120777, target.encode())

    def char_device(self, name, major, minor):
        self._entry(name, 0o020600, rdev=(major, minor))

    def finish(self):
        self._entry('TRAILER!!!', 0)
        return b''.join(self.parts)


def _pad(length):
    return b'\0' * (-length % 4)


def _read_json(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _write_atomic(path, data):
    tmp = path.with_name(path.name + '.tmp')
    tmp.write_bytes(data)
    os.replace(tmp, path)


# --- helpers: running -------------------------------------------------------

def _accel_args():
    """KVM only when the host CPU offers vmx/svm (the nested /dev/kvm on CI
    machines cannot run a stock kernel); QEMU falls back to TCG if KVM fails
    to initialise.  STAP_VM_ACCEL=tcg|kvm forces one."""
    forced = os.environ.get('STAP_VM_ACCEL')
    if forced:
        return ['-accel', forced] + (['-cpu', 'host'] if forced == 'kvm' else [])
    if _host_has_virt() and os.access('/dev/kvm', os.R_OK | os.W_OK):
        return ['-accel', 'kvm', '-accel', 'tcg', '-cpu', 'max']
    return ['-accel', 'tcg']


def _host_has_virt():
    with open('/proc/cpuinfo') as f:
        return any(line.startswith('flags') and re.search(r'\b(vmx|svm)\b', line)
                   for line in f)


def _virtfs(tag, path, readonly=False):
    escaped = str(path).replace(',', ',,')
    spec = (f'local,path={escaped},mount_tag={tag},security_model=none,'
            'multidevs=remap')
    return ['-virtfs', spec + (',readonly=on' if readonly else '')]


@contextlib.contextmanager
def _scratch_dir(scratch):
    """The caller's scratch dir (resolved), or a temporary one removed after."""
    if scratch is not None:
        yield Path(os.path.realpath(scratch))
        return
    with tempfile.TemporaryDirectory(prefix='stap-guest-scratch-') as made:
        yield Path(made)


def _write_control(ctl, commands, scratch, timeout, env):
    """The files the guest's init reads from the control share: the scratch
    path, one script per command, and the runner batch.sh.  For command N the
    runner leaves N.out, N.err, N.rc (only if it finished) and N.end (the
    runner moved past it), then 'tainted' and 'dmesg' at the end."""
    (ctl / 'scratch').write_text(str(scratch))
    for i, command in enumerate(commands):
        (ctl / f'{i}.sh').write_text(command + '\n')
    q = shlex.quote
    lines = [f'export PATH={GUEST_PATH} HOME=/root',
             *(f'export {name}={q(value)}' for name, value in env.items()),
             f'cd {q(str(scratch))} || exit 1',
             f'C={CTL_DIR}',
             'run() {',
             f'  timeout -k {KILL_GRACE} {timeout} /bin/sh -c '
             '\'/bin/sh "$1.sh" </dev/null >"$1.out" 2>"$1.err"; echo $? >"$1.rc"\''
             ' _ "$C/$1"',
             '  : >"$C/$1.end"',
             '}',
             *(f'run {i}' for i in range(len(commands))),
             'cat /proc/sys/kernel/tainted >"$C/tainted"',
             'dmesg >"$C/dmesg"']
    (ctl / 'batch.sh').write_text('\n'.join(lines) + '\n')


def _text(path):
    try:
        return path.read_bytes().decode(errors='replace')
    except FileNotFoundError:
        return ''


def _collect(ctl, commands, elapsed, qemu_rc):
    results = []
    for i, command in enumerate(commands):
        rc_text = _text(ctl / f'{i}.rc').strip()
        ended = (ctl / f'{i}.end').exists()
        results.append(Result(command, _text(ctl / f'{i}.out'),
                              _text(ctl / f'{i}.err'),
                              int(rc_text) if rc_text else None,
                              ended and not rc_text))
    tainted = _text(ctl / 'tainted').strip()
    return Batch(results, _text(ctl / 'console.log'), _text(ctl / 'dmesg'),
                 int(tainted) if tainted else None, elapsed, qemu_rc)


def _raise_if_died(batch, proc, total_timeout):
    if batch.tainted is not None:
        return
    if proc.returncode in (124, 137):
        why = f'QEMU killed after the {total_timeout} s host-side timeout'
    else:
        why = f'QEMU exited with status {proc.returncode}'
    unfinished = [r.command for r in batch if r.rc is None and not r.timed_out]
    stderr = proc.stderr.decode(errors='replace').strip()
    raise GuestDied(
        f'guest died before finishing the batch ({why}); first unfinished '
        f'command: {unfinished[0] if unfinished else None!r}'
        + (f'\nQEMU stderr: {stderr}' if stderr else '')
        + f'\n--- console tail ---\n{batch.console_tail()}', batch)
