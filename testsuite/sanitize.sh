#!/bin/sh
# testsuite/sanitize.sh - build stap, staprun and stapio with ASan and UBSan
# (-fsanitize=address,undefined -fno-sanitize-recover=all) in a copy of the
# source tree (the files git tracks or would track, as they are in the work
# tree), then run the host-only tests (test_parse.py, test_elaborate.py)
# and pass 3 over the diff/, semok/ and example corpora (p3corpus.py: `stap
# -p3`, no kbuild) against that build. Any sanitizer report (memory error,
# leak, undefined behaviour), test failure or pass-3 crash fails the run;
# reports are printed in full. The copy is removed on success and kept on
# failure. Environment: SANITIZE_CC (default clang), PYTEST_ARGS (extra
# pytest args), P3_JOBS (parallel pass-3 runs, default 2). No stapbpfcc
# (C++, and these tests compile no BPF).
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
if ! { autoreconf -fi && ./configure CC="$cc" CFLAGS="-g -O1 $san" LDFLAGS="$san" \
	     --without-bpfcc &&
       make -j"$(nproc)"; } >"$build_log" 2>&1; then
	tail -n 40 "$build_log" >&2
	echo "sanitize.sh: FAILED: the sanitizer build failed (log: $build_log)" >&2
	exit 1
fi

# Reports go to files (one per process) as well as failing the process;
# the tests' exact-stderr checks fail on abort too.
logs=$work/sanitizer-logs
mkdir -p "$logs"
STAP_BUILDDIR=$work
STAP=$work/translator/stap
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:log_path=$logs/asan
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$logs/ubsan
export STAP_BUILDDIR STAP ASAN_OPTIONS UBSAN_OPTIONS

# The host tests; their summary line is kept for the closing line.
rc=0
start=$(date +%s)
# shellcheck disable=SC2086 # PYTEST_ARGS is a word list
{ (cd "$work/testsuite" &&
   /usr/bin/python3 -m pytest -p no:cacheprovider -v -rs \
	test_parse.py test_elaborate.py ${PYTEST_ARGS:-}) || echo $? >"$work/pytest.rc"
} | tee "$work/pytest.log"
[ ! -f "$work/pytest.rc" ] || rc=$(cat "$work/pytest.rc")
pytest_sum=$(grep -E '^=+ .*(passed|failed|error).* in [0-9.]+s' "$work/pytest.log" |
	tail -n 1 | sed 's/^=* //; s/ in [0-9.]*s.*//')
echo "sanitize.sh: host tests took $(($(date +%s) - start)) s"

# Pass 3 over the corpora; a crash prints the script, its exit status and
# its pid (the suffix of its report file in $logs).
p3rc=0
start=$(date +%s)
echo "sanitize.sh: pass 3 over the corpora (P3_JOBS=${P3_JOBS:-2})"
(cd "$work/testsuite" && P3_JOBS=${P3_JOBS:-2} /usr/bin/python3 p3corpus.py) \
	>"$work/p3corpus.log" 2>&1 || p3rc=$?
grep -v '^p3corpus: [0-9]* passed' "$work/p3corpus.log" >"$work/p3corpus.failed" || true
head -n 200 "$work/p3corpus.failed"
if [ "$(wc -l <"$work/p3corpus.failed")" -gt 200 ]; then
	echo "sanitize.sh: (first 200 lines; all of them in $work/p3corpus.log)"
fi
p3_sum=$(grep '^p3corpus: [0-9]* passed' "$work/p3corpus.log" | sed 's/^p3corpus: //')
echo "sanitize.sh: pass 3 took $(($(date +%s) - start)) s"

reports=$(find "$logs" -type f | sort)
nreports=$(echo "$reports" | grep -c . || true)
summary="sanitize.sh: host tests: ${pytest_sum:-no summary (exit $rc)}; pass 3: ${p3_sum:-no summary (exit $p3rc)}; sanitizer reports: $nreports"
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
	echo "$summary" >&2
	echo "sanitize.sh: FAILED: sanitizer reports (tree kept in $work)" >&2
	exit 1
fi
if [ "$rc" != 0 ]; then
	echo "$summary" >&2
	echo "sanitize.sh: FAILED: pytest exit status $rc (tree kept in $work)" >&2
	exit 1
fi
if [ "$p3rc" != 0 ]; then
	echo "$summary" >&2
	echo "sanitize.sh: FAILED: p3corpus.py exit status $p3rc (log: $work/p3corpus.log; tree kept in $work)" >&2
	exit 1
fi
cd /
rm -rf "$work"
echo "$summary"
echo "sanitize.sh: no sanitizer report; the host tests and pass 3 passed"
