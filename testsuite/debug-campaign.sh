#!/bin/sh
# testsuite/debug-campaign.sh - the debug-kernel campaign of issue 19, one
# command, never part of `make check`: builds the debug guest kernel once
# (debug-kernel.sh: KASAN, lockdep, DEBUG_ATOMIC_SLEEP, failslab,
# fail_page_alloc), installs its modules under /lib/modules/RELEASE (the
# guest shares the host root; its build tree is the `build` link there, for
# `stap -r RELEASE`), then boots it ($STAP_GUEST_KERNEL, see guest.py) for
# the chaos suite, a slice of the differential corpus and the
# fault-injection pass (debug_faults.py). Any KASAN, lockdep, atomic-sleep,
# BUG, WARNING or oops report in the guest fails the run.
#
#     testsuite/debug-campaign.sh [CACHE]   # default ~/.cache/stap-debug-kernel
#
# DIFF_SLICE (a pytest -k expression) picks the corpus slice; the default
# takes the language directories, which do not depend on the kernel.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/stap-debug-kernel}
DIFF_SLICE=${DIFF_SLICE:-arrays or control or functions or printf or strings or values}

"$HERE/debug-kernel.sh" "$CACHE"
KVER=$(cat "$CACHE/done")
if [ ! -f "/lib/modules/$KVER/modules.dep" ]; then
	mkdir -p "/lib/modules/$KVER"
	cp -a "$CACHE/modules/lib/modules/$KVER/." "/lib/modules/$KVER/"
fi
ln -sfn "$CACHE/build" "/lib/modules/$KVER/build"
export STAP_GUEST_KERNEL="$CACHE"
cd "$HERE"
rc=0
echo "== chaos suite on $KVER"
/usr/bin/python3 -m pytest -q test_chaos.py || rc=1
echo "== differential corpus ($DIFF_SLICE) on $KVER"
/usr/bin/python3 -m pytest -q test_diff.py -k "$DIFF_SLICE" || rc=1
echo "== fault injection on $KVER"
/usr/bin/python3 debug_faults.py || rc=1
exit $rc
