#!/bin/sh
# setup.sh - install what the project needs from Debian's archive (as root),
# then configure and build it in place. Safe to run again: it installs only
# missing packages and rebuilds only what changed.
set -e
cd "$(dirname "$0")"

PACKAGES="gcc make autoconf automake pkg-config libdw-dev libelf-dev
libbpf-dev linux-headers-amd64 linux-image-amd64 qemu-system-x86
busybox-static xz-utils cpio python3 python3-pytest groff-base openssl systemtap systemtap-doc
systemtap-sdt-dev libc6-dbg
clang libclang-rt-dev strace g++ llvm-14-dev libclang-14-dev"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup.sh: missing packages:$missing (run as root to install them)" >&2
		exit 1
	fi
	echo "setup.sh: installing$missing"
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure --enable-werror
make -j"$(nproc)"
