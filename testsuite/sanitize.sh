#!/bin/sh
# testsuite/sanitize.sh - build stap, staprun and stapio with ASan and UBSan
# (-fsanitize=address,undefined -fno-sanitize-recover=all) in a copy of the
# source tree (the files git tracks or would track, as they are in the work
# tree), then run the host-only tests (test_parse.py, test_elaborate.py)
# against that build. Any sanitizer report (memory error, leak, undefined
# behaviour) or test failure fails the run; reports are printed in full.
# The copy is removed on success and kept on failure.
# Environment: SANITIZE_CC (default clang), PYTEST_ARGS (extra pytest args).
set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
cc=${SANITIZE_CC:-clang}
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "sanitize.sh: $cc not found (./setup.sh installs clang)" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/stap-sanitize.XXXXXX")
echo "sanitize.sh: copying the tree to $work"

# Copy the sources, not the in-place build's outputs.
if [ -d "$srcdir/.git" ] && command -v git >/dev/null 2>&1; then
	(cd "$srcdir" &&
	 git ls-files -z --cached --others --exclude-standard |
	 tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
		tar -xf - -C "$work"
else
	cp -a "$srcdir/." "$work"
	rm -rf "$work/build-fuzz"
	if [ -f "$work/Makefile" ]; then
		make -C "$work" distclean >/dev/null
	fi
fi

cd "$work"
echo "sanitize.sh: building with $cc $san"
build_log=$work/build.log
if ! { autoreconf -fi && ./configure CC="$cc" CFLAGS="-g -O1 $san" LDFLAGS="$san" &&
       make -j"$(nproc)"; } >"$build_log" 2>&1; then
	tail -n 40 "$build_log" >&2
	echo "sanitize.sh: FAILED: the sanitizer build failed (log: $build_log)" >&2
	exit 1
fi

# Reports go to files (one per process) as well as failing the process;
# the tests' exact-stderr checks fail on abort too.
logs=$work/sanitizer-logs
mkdir -p "$logs"
rc=0
# shellcheck disable=SC2086 # PYTEST_ARGS is a word list
(cd "$work/testsuite" &&
 STAP_BUILDDIR=$work \
 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:log_path=$logs/asan \
 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$logs/ubsan \
 /usr/bin/python3 -m pytest -p no:cacheprovider -v -rs \
	test_parse.py test_elaborate.py ${PYTEST_ARGS:-}) || rc=$?

reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
	n=0
	for r in $reports; do
		n=$((n + 1))
		[ $n -le 3 ] || continue
		echo "---- $r" >&2
		cat "$r" >&2
	done
	echo "sanitize.sh: $n sanitizer report(s) in $logs; by first line:" >&2
	# shellcheck disable=SC2086
	grep -h -m1 -E 'runtime error:|ERROR: [A-Za-z]+Sanitizer' $reports |
		sed 's/^==[0-9]*==//' | sort | uniq -c | sort -rn >&2
	echo "sanitize.sh: FAILED: sanitizer reports (tree kept in $work)" >&2
	exit 1
fi
if [ "$rc" != 0 ]; then
	echo "sanitize.sh: FAILED: pytest exit status $rc (tree kept in $work)" >&2
	exit 1
fi
cd /
rm -rf "$work"
echo "sanitize.sh: no sanitizer report; the host tests passed"
