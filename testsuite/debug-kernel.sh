#!/bin/sh
# testsuite/debug-kernel.sh - build the debug guest kernel once, into a
# cache: Debian's linux-source-6.1 with the guest kernel's own config plus
# KASAN, lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP and fault injection
# (failslab, fail_page_alloc, with their debugfs knobs), BTF kept (the
# translator types kernel probes from it). Trimmed with `make
# localmodconfig` to the modules the test guest loads (GUEST_MODULES
# below): Debian's built-in part is kept whole, every other module is
# dropped, which takes the build from hours to well under one on 2 cores.
# Run it by hand (testsuite/debug-campaign.sh does), never from `make check`.
#
#     testsuite/debug-kernel.sh [CACHE]     # default ~/.cache/stap-debug-kernel
#
# Leaves CACHE/build (a kbuild tree: `stap -r CACHE/build`), CACHE/bzImage,
# CACHE/modules/lib/modules/KVER and CACHE/done (the kernel release); a
# second run with CACHE/done present does nothing, and one after an
# interrupted build carries on where it stopped (CACHE/build/.configured
# says the tree and its .config are complete). Each stage's start and end
# times go to CACHE/times. Needs the packages
# linux-source-6.1 and the kernel build dependencies (bc bison flex
# libelf-dev libssl-dev dwarves rsync); it says which are missing.
set -eu

CACHE=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/stap-debug-kernel}
BASE_CONFIG=${BASE_CONFIG:-/boot/config-6.1.0-56-amd64}
TARBALL=/usr/src/linux-source-6.1.tar.xz
JOBS=${JOBS:-4}
# The modules the guest loads: guest.py's virtio/9p set, what the tests
# modprobe or copy (crc7, libcrc32c, brd, ext4, minix, dummy), and their
# dependencies.
GUEST_MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev
virtio_pci netfs fscache 9pnet 9pnet_virtio 9p crc7 libcrc32c crc32c_generic
crc32c_intel crc16 brd mbcache jbd2 ext4 minix dummy"

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

stamp() { echo "$(date -u +%FT%TZ) $*" >> "$CACHE/times"; }

mkdir -p "$CACHE"
if [ -f "$CACHE/build/.configured" ]; then
	stamp "resume"
	cd "$CACHE/build"
else
	stamp "configure"
	rm -rf "$CACHE/build"
	mkdir "$CACHE/build"
	tar -xJf "$TARBALL" -C "$CACHE/build" --strip-components=1
	cd "$CACHE/build"
	cp "$BASE_CONFIG" .config
	{ echo "Module Size Used by"
	  for m in $GUEST_MODULES; do echo "$m 0 0"; done; } > lsmod.guest
	yes '' | make LSMOD=lsmod.guest localmodconfig >/dev/null
	# a kernel of its own: no Debian signing keys, a release of its own
	scripts/config --disable MODULE_SIG_ALL --set-str MODULE_SIG_KEY "" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str LOCALVERSION "-stapdebug" --disable LOCALVERSION_AUTO \
		--enable KASAN --enable KASAN_GENERIC \
		--enable PROVE_LOCKING --enable DEBUG_ATOMIC_SLEEP \
		--enable FAULT_INJECTION --enable FAULT_INJECTION_DEBUG_FS \
		--enable FAILSLAB --enable FAIL_PAGE_ALLOC \
		--enable DEBUG_INFO_BTF
	# built-in parts a QEMU guest with a serial console and a 9p root never
	# uses (IPv6 and netfilter among them: about a third of the build)
	for opt in XEN X86_SGX KEXEC CRASH_DUMP LIVEPATCH HIBERNATION SUSPEND \
		WIRELESS WLAN MD SPI EDAC AMD_IOMMU INTEL_IOMMU EFI CPU_FREQ \
		SECURITY_SELINUX SECURITY_TOMOYO SECURITY_APPARMOR IMA EVM INTEGRITY \
		SECURITY_LANDLOCK IPV6 NETFILTER NET_SCHED XFRM NETLABEL MPTCP DCB \
		NET_SWITCHDEV NET_L3_MASTER_DEV HOTPLUG_PCI VT FB DRM INPUT HID I2C \
		GPIOLIB PINCTRL REGULATOR HWMON POWER_SUPPLY WATCHDOG IO_URING \
		X86_MCE RAS NUMA PPS PTP_1588_CLOCK NVMEM X86_X32_ABI ZSWAP KSM \
		DMADEVICES USB_SUPPORT MEDIA_SUPPORT; do
		scripts/config --disable $opt
	done
	# outline KASAN checks: a smaller, quicker build; same reports
	scripts/config --disable KASAN_INLINE --enable KASAN_OUTLINE
	make olddefconfig
	for opt in KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP FAILSLAB FAIL_PAGE_ALLOC DEBUG_INFO_BTF; do
		grep -q "^CONFIG_$opt=y" .config || { echo "debug-kernel.sh: CONFIG_$opt did not stick" >&2; exit 1; }
	done
	touch .configured
fi
stamp "make -j$JOBS bzImage modules"
make -j"$JOBS" bzImage modules
rm -rf "$CACHE/modules"
make INSTALL_MOD_PATH="$CACHE/modules" INSTALL_MOD_STRIP=1 modules_install
cp arch/x86/boot/bzImage "$CACHE/bzImage"
make -s kernelrelease > "$CACHE/done"
stamp "done $(cat "$CACHE/done")"
echo "debug kernel $(cat "$CACHE/done") built in $CACHE"
