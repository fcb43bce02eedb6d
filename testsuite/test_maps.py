# Global arrays and statistics end to end: maps of longs and strings,
# multi-key arrays, in, delete, foreach with sorting, limits, slices and
# break/continue, <<< and the aggregates, @hist_log/@hist_linear printing,
# overflow and empty-aggregate errors, and the exit display of globals
# written but never read. Every expected output below is what Debian's
# SystemTap 4.8 printed for the same script in the same guest.
import pytest

from conftest import run_scripts

CASES = {
    # foreach over histogram buckets: ascending whatever the sort, limit, value
    'hist_foreach_hf1': ('global s, t probe begin { for (i = 0; i < 10; i++) { s <<< i * 3; t <<< i * 100 } foreach (v = b- in @hist_linear(s, 0, 30, 10) limit 4) printf("%d:%d ", b, v); println(""); foreach ([b] in @hist_log(t) limit 3) printf("%d ", b); println(""); exit() }',
        '0:0 1:4 2:3 3:3 \n0 1 2 \n', 0, ''),
    # a global updated only by ++ or += is printed at exit, unless the
    # value of the update is used
    'display_wo1': ('global n probe begin { if (n++ == 0) println("x"); exit() }',
        'x\n', 0, ''),
    'display_wo2': ('global n probe begin { n++; exit() }',
        'n=1\n', 0, ''),
    'display_wo3': ('global n probe begin { x = n++; println(x); exit() }',
        '0\n', 0, ''),
    'display_wo4': ('global n probe begin { n += 2; exit() }',
        'n=2\n', 0, ''),
    'map_long': ('global a probe begin { a[1] = 10; a[2] = 20; a[1] += 5; a[2]++; ++a[4]; a[4] *= 7; println(a[1], " ", a[2], " ", a[3], " ", a[4]); exit() }',
        '15 21 0 7\n', 0, ''),
    'map_string': ('global s probe begin { s["x"] = "hello"; s["y"] .= "w"; s["y"] .= "orld"; println(s["x"], " ", s["y"], "|", s["z"], "|"); exit() }',
        'hello world||\n', 0, ''),
    'map_in_delete': ('global m probe begin { m[1,"a"] = 1; m[2,"b"] = 2; println([1,"a"] in m, [3,"c"] in m); delete m[1,"a"]; println([1,"a"] in m); m[5,"q"] = 3; m[6,"q"] = 4; delete m[*,"q"]; println([5,"q"] in m, [6,"q"] in m, [2,"b"] in m); delete m; println([2,"b"] in m); if (!([9,"z"] in m)) println("absent"); exit() }',
        '10\n0\n001\n0\nabsent\n', 0, ''),
    'foreach_sort': ('global a probe begin { a[3] = 30; a[1] = 10; a[2] = 20; a[5] = 5; foreach (k+ in a) printf("%d=%d ", k, a[k]); println(""); foreach (k- in a) print(k, " "); println(""); foreach (k in a-) print(k, " "); println(""); foreach (k in a+ limit 2) print(k, " "); println(""); foreach (v = k in a-) printf("%d:%d ", k, v); println(""); foreach (v- = k in a limit 3) printf("%d:%d ", k, v); println(""); exit() }',
        '1=10 2=20 3=30 5=5 \n5 3 2 1 \n3 2 1 5 \n5 1 \n3:30 2:20 1:10 5:5 \n3:30 2:20 1:10 \n', 0, ''),
    'foreach_multikey': ('global b probe begin { b["x", 2] = 1; b["y", 1] = 2; b["a", 3] = 3; b["x", 1] = 4; foreach ([s, n+] in b) printf("%s,%d ", s, n); println(""); foreach ([s+, n] in b) printf("%s,%d ", s, n); println(""); foreach ([s, n] in b[*, 1]) printf("%s,%d ", s, n); println(""); foreach ([s, n] in b["x", *]+) printf("%s,%d ", s, n); println(""); exit() }',
        'y,1 x,1 x,2 a,3 \na,3 x,1 x,2 y,1 \nx,1 y,1 \nx,2 x,1 \n', 0, ''),
    'stats_scalar': ('global s probe begin { for (i = 1; i <= 10; i++) s <<< i; s <<< -4; println(@count(s), " ", @sum(s), " ", @min(s), " ", @max(s), " ", @avg(s)); exit() }',
        '11 51 -4 10 4\n', 0, ''),
    'hist_log': ('global s probe begin { s <<< 0; s <<< 1; s <<< 2; s <<< 3; s <<< 4; s <<< 100; s <<< 1000; for (i = 0; i < 60; i++) s <<< 7; print(@hist_log(s)); println(@hist_log(s)[3]); exit() }',
        'value |-------------------------------------------------- count\n    0 |                                                    1\n    1 |                                                    1\n    2 |@                                                   2\n    4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                     61\n    8 |                                                    0\n   16 |                                                    0\n   32 |                                                    0\n   64 |                                                    1\n  128 |                                                    0\n  256 |                                                    0\n  512 |                                                    1\n 1024 |                                                    0\n 2048 |                                                    0\n\n0\n', 0, ''),
    'hist_linear': ('global s probe begin { for (i = 0; i < 100; i += 3) s <<< i; s <<< -5; s <<< 500; print(@hist_linear(s, 0, 100, 10)); exit() }',
        'value |-------------------------------------------------- count\n   <0 |@                                                  1\n    0 |@@@@                                               4\n   10 |@@@                                                3\n   20 |@@@                                                3\n   30 |@@@@                                               4\n   40 |@@@                                                3\n   50 |@@@                                                3\n   60 |@@@@                                               4\n   70 |@@@                                                3\n   80 |@@@                                                3\n   90 |@@@@                                               4\n  100 |                                                   0\n >100 |@                                                  1\n\n', 0, ''),
    'hist_negative': ('global s probe begin { s <<< -1; s <<< -20; s <<< 5; s <<< 0; print(@hist_log(s)); exit() }',
        'value |-------------------------------------------------- count\n  -64 |                                                   0\n  -32 |                                                   0\n  -16 |@                                                  1\n   -8 |                                                   0\n   -4 |                                                   0\n   -2 |                                                   0\n   -1 |@                                                  1\n    0 |@                                                  1\n    1 |                                                   0\n    2 |                                                   0\n    4 |@                                                  1\n    8 |                                                   0\n   16 |                                                   0\n\n', 0, ''),
    'stats_array': ('global t probe begin { t["a"] <<< 1; t["a"] <<< 3; t["b"] <<< 10; t["c"] <<< 7; t["c"] <<< 8; t["c"] <<< 9; foreach (k+ in t) printf("%s %d %d %d %d %d\\n", k, @count(t[k]), @sum(t[k]), @min(t[k]), @max(t[k]), @avg(t[k])); foreach (k in t @sum-) print(k, " "); println(""); foreach (k in t- limit 1) println(k); exit() }',
        'a 2 4 1 3 2\nb 1 10 10 10 10\nc 3 24 7 9 8\nc b a \nc\n', 0, ''),
    'empty_aggregate': ('global s probe begin { println(@count(s), " ", @sum(s)); println(@min(s)) } probe end { println("end") }',
        '0 0\n', 1, "ERROR: empty aggregate near operator '@min' at <input>:1:66\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'array_overflow': ('global a[3] probe begin { for (i = 0; i < 5; i++) a[i] = i; println("not reached") }',
        '', 1, "ERROR: Array overflow, check size limit (3) near identifier 'a' at <input>:1:51\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'array_wrap': ('global a%[3] probe begin { for (i = 0; i < 5; i++) a[i] = i * 10; foreach (k+ in a) printf("%d=%d ", k, a[k]); println(""); exit() }',
        '2=20 3=30 4=40 \n', 0, ''),
    'foreach_nested_break': ('global a, b probe begin { a[1] = 1; a[2] = 2; a[3] = 3; b["x"] = 1; b["y"] = 2; foreach (k+ in a) { if (k == 3) break; foreach (s+ in b) { if (s == "y") continue; printf("%d%s ", k, s) } } println(""); exit() }',
        '1x 2x \n', 0, ''),
    'display_write_only': ('global count, name probe begin { count = 42; name = "stap"; exit() }',
        'count=42\nname="stap"\n', 0, ''),
    'display_arrays': ('global a, s, t, u probe begin { a[1,"x"] = 5; a[2,"y"] = 7; a[3,"z"] = 6; s <<< 3; s <<< 5; t["k"] = "v"; t["j"] = "w"; u[1] <<< 4; u[1] <<< 6; u[2] <<< 1; exit() }',
        'a[2,"y"]=7\na[3,"z"]=6\na[1,"x"]=5\ns @count=2 @min=3 @max=5 @sum=8 @avg=4\nt["j"]="w"\nt["k"]="v"\nu[1] @count=2 @min=4 @max=6 @sum=10 @avg=5\nu[2] @count=1 @min=1 @max=1 @sum=1 @avg=1\n', 0, ''),
    'foreach_unsorted': ('global a probe begin { a[3] = 30; a[1] = 10; a[7] = 70; a[2] = 20; a[9] = 5; foreach (k in a) print(k, " "); println(""); exit() }',
        '3 1 7 2 9 \n', 0, ''),
    'foreach_unsorted_str': ('global a probe begin { a["pear"] = 3; a["apple"] = 1; a["fig"] = 7; a["kiwi"] = 2; foreach (k in a) print(k, " "); println(""); exit() }',
        'pear apple fig kiwi \n', 0, ''),
    'sort_ties': ('global a probe begin { a["b"] = 1; a["a"] = 1; a["c"] = 2; a["d"] = 1; foreach (k in a-) print(k, " "); println(""); foreach (k in a+) print(k, " "); println(""); exit() }',
        'c b a d \nb a d c \n', 0, ''),
}


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    return run_scripts({n: c[0] for n, c in CASES.items()}, krel,
                       tmp_path_factory.mktemp('maps'))


@pytest.mark.parametrize('name', list(CASES))
def test_maps(run, name):
    _, out, rc, err = CASES[name]
    r = run[name]
    assert (r.stdout, r.stderr, r.rc) == (out, err, rc)
