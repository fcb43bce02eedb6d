#!/bin/sh
# kernel-dbg.sh - make check's set-up for the kernel DWARF tests
# (test_kdwarf_vmlinux.py): the guest kernel's debuginfo package
# (linux-image-KVER-dbg: the debug vmlinux and modules under /usr/lib/debug,
# an 860 MB download), installed with apt-get when missing. `make demo`
# does not need it, so setup.sh leaves it out.
set -e
krel=$(cd "$(dirname "$0")" && /usr/bin/python3 -c 'import guest; print(guest.kernel_release())')
pkg="linux-image-$krel-dbg"
dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "kernel-dbg.sh: $pkg is missing (run as root to install it)" >&2
	exit 0
fi
echo "kernel-dbg.sh: installing $pkg"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg"
