#!/usr/bin/python3
# record_kdwarf.py - record goldens of the kernel's DWARF tests
# (test_kdwarf_order.py) from Debian's SystemTap 4.8 with the guest
# kernel's debuginfo (linux-image-KVER-dbg) installed: `/usr/bin/stap -r
# TREE ARGS` with 4.8's default debuginfo path, its stdout written to
# testsuite/kvmlinux/NAME (its stderr to NAME.err when the case says so).
# TREE is a copy of the guest kernel's build tree (symlinks) with the debug
# System.map and a vmlinux link to the debug vmlinux, where 4.8 looks for
# the kernel's DWARF and symbols of a -r directory (/tmp/kb7, made here if
# missing); module cases take -r KVER (4.8 finds the modules' debuginfo by
# release).
#
#   record_kdwarf.py            every case
#   record_kdwarf.py NAME ...   the cases named
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import guest  # noqa: E402

GOLDENS = HERE / 'kvmlinux'
TREE = Path('/tmp/kb7')

# name -> (args, -r: 'tree' or 'release', keep stderr[, exit status])
CASES = {
    # 4.8's order of probes: each unit's functions as its hash table of
    # them walks them, then their inlined copies (uorder.c)
    'order_read_write.p2': (['-p2', '-e', 'probe kernel.function("*@fs/read_write.c") { next }'],
                            'tree', False),
    'order_labels.p2': (['-p2', '-e', 'probe kernel.function("*@fs/read_write.c").label("*") '
                         '{ next }'], 'tree', False),
    'order_namei_labels.p2': (['-p2', '-e', 'probe kernel.function("*@fs/namei.c").label("*") '
                               '{ next }'], 'tree', False),
    # a name without wildcard: its units as the module's table holds them
    'order_fdget_pos_inline.p2': (['-p2', '-e', 'probe kernel.function("fdget_pos").inline '
                                   '{ next }'], 'tree', False),
    'order_fdget_pos.p2': (['-p2', '-e', 'probe kernel.function("fdget_pos") { next }'],
                           'tree', False),
    # a module: init_module's name in its table too; name.cold by address
    'order_module9p.p2': (['-p2', '-e', 'probe module("9p").function("*") { next }'],
                          'release', True),
    # a function a pattern matches on 4.8's blacklists: its warning, each
    # text once, then how many repeats were left out
    'bl_vfs.p2': (['-p2', '-e', 'probe kernel.function("vfs_*"), '
                   'kernel.function("vfs_caches_init") ? { next }'], 'tree', True),
    'bl_spin_lock.p2': (['-p2', '-e', 'probe kernel.function("spin_lock") { next }'], 'tree',
                        True, 1),
}


def tree(krel):
    """/tmp/kb7: the build tree with the debug System.map and vmlinux."""
    if not TREE.exists():
        build = os.path.realpath(f'/lib/modules/{krel}/build')
        subprocess.run(['cp', '-as', build, str(TREE)], check=True)
        subprocess.run(['cp', f'/usr/lib/debug/boot/System.map-{krel}',
                        str(TREE / 'System.map')], check=True)
        (TREE / 'vmlinux').symlink_to(f'/usr/lib/debug/boot/vmlinux-{krel}')
    return str(TREE)


def record(name, krel):
    args, where, keep_err, rc = (CASES[name] + (0,))[:4]
    env = {k: v for k, v in os.environ.items() if k != 'SYSTEMTAP_DEBUGINFO_PATH'}
    r = subprocess.run(['/usr/bin/stap', '-r', tree(krel) if where == 'tree' else krel] + args,
                       capture_output=True, text=True, env=env, timeout=1800)
    if r.returncode != rc:
        print(f'{name}: 4.8 exited with {r.returncode}:\n{r.stderr}', flush=True)
        return False
    (GOLDENS / name).write_text(r.stdout)
    if keep_err:
        (GOLDENS / f'{name}.err').write_text(r.stderr)
    print(f'{name}: {len(r.stdout.splitlines())} lines', flush=True)
    return True


def main():
    krel = guest.kernel_release()
    if not os.path.exists(f'/usr/lib/debug/boot/vmlinux-{krel}'):
        sys.exit(f'record_kdwarf.py: linux-image-{krel}-dbg is not installed')
    names = sys.argv[1:] or sorted(CASES)
    return 0 if all([record(n, krel) for n in names]) else 1


if __name__ == '__main__':
    sys.exit(main())
