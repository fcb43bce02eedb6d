#!/bin/sh
# demo.sh - the README's end-to-end run: translate and build a real script
# on this host for the test guest's kernel, then load and run it in the guest
# (this host's kernel cannot load modules). Run from the build tree.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
krel=$(/usr/bin/python3 -c "import sys; sys.path.insert(0, '$top/testsuite'); import guest; print(guest.kernel_release())")
scratch=$(mktemp -d /tmp/stap-demo.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
echo "== stap -p4 -r $krel -m hello (on this host)"
"$top/translator/stap" -v -p4 -r "$krel" -m hello \
	-e 'probe begin { printf("hello %s %d\n", "world", 6*7); exit() }'
echo "== staprun hello.ko (in the $krel guest)"
"$top/testsuite/guest-run" --scratch "$scratch" -- "$top/staprun/staprun hello.ko"
