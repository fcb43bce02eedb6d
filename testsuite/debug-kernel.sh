#!/bin/sh
# testsuite/debug-kernel.sh - build the debug guest kernel once, into a
# cache: Debian's linux-source-6.1 with the guest kernel's own config plus
# KASAN, lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP and fault injection
# (failslab, fail_page_alloc, with their debugfs knobs), BTF kept (the
# translator types kernel probes from it). Hours on 2 cores: run it by
# hand, niced, never from `make check`.
#
#     testsuite/debug-kernel.sh [CACHE]     # default ~/.cache/stap-debug-kernel
#
# Leaves CACHE/build (a kbuild tree: `stap -r CACHE/build`), CACHE/bzImage,
# CACHE/modules/lib/modules/KVER and CACHE/done (the kernel release); a
# second run with CACHE/done present does nothing. Needs the packages
# linux-source-6.1 and the kernel build dependencies (bc bison flex
# libelf-dev libssl-dev dwarves rsync); it says which are missing.
set -eu

CACHE=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/stap-debug-kernel}
BASE_CONFIG=${BASE_CONFIG:-/boot/config-6.1.0-56-amd64}
TARBALL=/usr/src/linux-source-6.1.tar.xz
JOBS=${JOBS:-$(nproc)}

if [ -f "$CACHE/done" ]; then
	echo "debug kernel $(cat "$CACHE/done") already built in $CACHE"
	exit 0
fi
missing=
[ -f "$TARBALL" ] || missing="$missing linux-source-6.1"
for tool in bc bison flex pahole rsync; do
	command -v $tool >/dev/null 2>&1 || missing="$missing $tool"
done
[ -f /usr/include/libelf.h ] || missing="$missing libelf-dev"
[ -f /usr/include/openssl/ssl.h ] || missing="$missing libssl-dev"
if [ -n "$missing" ]; then
	echo "debug-kernel.sh: install first:$missing" >&2
	exit 1
fi

mkdir -p "$CACHE"
rm -rf "$CACHE/build"
mkdir "$CACHE/build"
tar -xJf "$TARBALL" -C "$CACHE/build" --strip-components=1
cd "$CACHE/build"
cp "$BASE_CONFIG" .config
# a kernel of its own: no Debian signing keys, a release of its own
scripts/config --disable MODULE_SIG_ALL --set-str MODULE_SIG_KEY "" \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	--set-str LOCALVERSION "-stapdebug" --disable LOCALVERSION_AUTO \
	--enable KASAN --enable KASAN_GENERIC --enable KASAN_INLINE \
	--enable PROVE_LOCKING --enable DEBUG_ATOMIC_SLEEP \
	--enable FAULT_INJECTION --enable FAULT_INJECTION_DEBUG_FS \
	--enable FAILSLAB --enable FAIL_PAGE_ALLOC \
	--enable DEBUG_INFO_BTF
make olddefconfig
for opt in KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP FAILSLAB FAIL_PAGE_ALLOC DEBUG_INFO_BTF; do
	grep -q "^CONFIG_$opt=y" .config || { echo "debug-kernel.sh: CONFIG_$opt did not stick" >&2; exit 1; }
done
nice make -j"$JOBS" bzImage modules
rm -rf "$CACHE/modules"
make INSTALL_MOD_PATH="$CACHE/modules" INSTALL_MOD_STRIP=1 modules_install
cp arch/x86/boot/bzImage "$CACHE/bzImage"
make -s kernelrelease > "$CACHE/done"
echo "debug kernel $(cat "$CACHE/done") built in $CACHE"
