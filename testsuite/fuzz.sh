#!/bin/sh
# testsuite/fuzz.sh [SECONDS] - fuzz pass 1 (lexer, preprocessor, parser):
# builds translator/front/fuzz_parse.c with clang's libFuzzer, ASan and UBSan into
# build-fuzz/ (or $FUZZ_BUILDDIR), then fuzzes for SECONDS (default 60)
# from the seed corpus testsuite/fuzz-seed/, the *.stp examples of Debian's
# systemtap-doc (copied into the build directory, never into the tree) and
# the corpus kept in build-fuzz/corpus from earlier runs. Exits non-zero on
# any crash, hang (-timeout=5), leak, out-of-memory or sanitizer report,
# after printing the report and the reproducer's path.
set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
build=${FUZZ_BUILDDIR:-$srcdir/build-fuzz}
cc=${FUZZ_CC:-clang}
examples=/usr/share/systemtap/examples

case $secs in
''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz.sh: $cc not found (./setup.sh installs clang and libclang-rt-dev)" >&2
	exit 1
fi

mkdir -p "$build/corpus" "$build/artifacts"
build=$(cd "$build" && pwd)
rm -rf "$build/examples" "$build/artifacts"/*
mkdir -p "$build/examples"

# The translator's sources as the Makefile builds stap, minus main().
# The kernel catalog library (libkcat) is compiled in too, with its libraries.
srcs=$( (sed -n '/^translator_stap_SOURCES/,/[^\\]$/p' "$srcdir/Makefile.am";
	 sed -n '/^translator_libkcat_a_SOURCES/,/[^\\]$/p' "$srcdir/Makefile.am") |
	tr -d '\\' | tr ' \t' '\n\n' | grep '\.c$' | grep -v '^translator/main\.c$')
elf=$(pkg-config --cflags --libs libdw libelf libbpf liblzma 2>/dev/null || true)

echo "fuzz.sh: building $build/fuzz_parse"
cd "$srcdir"
# shellcheck disable=SC2086 # $srcs and $elf are word lists
"$cc" -std=c11 -g -O1 -D_GNU_SOURCE -I runtime/transport \
	-I translator/base -I translator/front -I translator/info \
	-I translator/elab -I translator/gen -I translator/family -I translator/build \
	-I translator/bpf \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer \
	$srcs translator/front/fuzz_parse.c $elf -o "$build/fuzz_parse"

if [ -d "$examples" ]; then
	find "$examples" -name '*.stp' -type f | while IFS= read -r f; do
		rel=${f#"$examples"/}
		cp "$f" "$build/examples/$(echo "$rel" | tr / _)"
	done
fi
echo "fuzz.sh: seeds: $(ls "$srcdir/testsuite/fuzz-seed" | wc -l) in testsuite/fuzz-seed," \
	"$(ls "$build/examples" | wc -l) examples, $(ls "$build/corpus" | wc -l) kept;" \
	"fuzzing for ${secs}s"

log=$build/fuzz.log
rc=0
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
"$build/fuzz_parse" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 \
	-artifact_prefix="$build/artifacts/" -print_final_stats=1 \
	"$build/corpus" "$srcdir/testsuite/fuzz-seed" "$build/examples" \
	>"$log" 2>&1 || rc=$?

if [ "$rc" = 0 ] && ! grep -Eq 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|^SUMMARY: ' "$log"; then
	grep -E '^#[0-9]+' "$log" | tail -n 1
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log"
	echo "fuzz.sh: no crash, hang, leak or sanitizer report in ${secs}s"
	exit 0
fi

# A hang is wall-clock: on an overloaded machine a fast input can hit
# -timeout. Only a timeout that happens again when the input is re-run
# alone counts.
if grep -q 'ERROR: libFuzzer: timeout' "$log" &&
   ! grep -Eq 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|deadly signal' "$log"; then
	again=no
	for a in "$build/artifacts"/timeout-*; do
		for _ in 1 2; do
			"$build/fuzz_parse" -timeout=5 -rss_limit_mb=2048 "$a" >/dev/null 2>&1 ||
				again=yes
		done
	done
	if [ "$again" = no ]; then
		grep -E '^#[0-9]+' "$log" | tail -n 1
		echo "fuzz.sh: warning: a timeout did not happen again when its input" \
			"was re-run alone (machine overloaded?); not a failure" >&2
		exit 0
	fi
fi

echo "fuzz.sh: FAILED (exit status $rc); the report:" >&2
# from the first report line to the end, without the progress lines
awk '/==[0-9]+==|runtime error:|ERROR: libFuzzer|ALARM: working on|Slowest unit|^SUMMARY/ {on = 1}
     on && !/^#[0-9]+\t/' "$log" >&2
for a in "$build/artifacts"/*; do
	[ -f "$a" ] || continue
	case ${a##*/} in slow-unit-*) continue ;; esac
	echo "fuzz.sh: reproducer: $a ($(wc -c <"$a") bytes); run it with" >&2
	echo "    FUZZ_PARSE_STDERR=1 $build/fuzz_parse $a" >&2
	echo "fuzz.sh: its first bytes:" >&2
	head -c 512 "$a" | od -c | head -n 20 >&2
done
echo "fuzz.sh: full log in $log" >&2
exit 1
