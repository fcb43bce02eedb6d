# Execution limits and run-time error handling end to end, each expected
# output (stdout, stderr, exit status) being what Debian's SystemTap 4.8
# printed for the same script and -D options in the same guest:
# MAXACTION (statement budget: straight-line blocks, loops, functions; not
# caught by try/catch; MAXACTION_INTERRUPTIBLE, -u), MAXNESTING, MAXSTRINGLEN,
# MAXMAPENTRIES and sized arrays, MAXERRORS (the session stops after more
# than N errors, then the error probes run instead of the end probes),
# --suppress-handler-errors, `next` in probes and functions ("all functions
# exhausted"), division by zero in compound assignments, and the final
# "WARNING: Number of errors: N, skipped probes: M" (nest_try_pure: a call
# of a side-effect-free function is elided). Skipped probes need several
# CPUs: test_concurrency.py.
import pytest

import guest
from conftest import STAPRUN, run_stap

# name: (script, stap options, stdout, exit status, stderr)
CASES = {
    'act_count': ('global n probe begin { try { while (1) n++ } catch (e) { println(e) } println(n) } probe end { println("end ", n) }',
        [], '', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:40\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'act_d': ('global n probe begin { for (i = 0; i < 40; i++) n++; println(n); for (i = 0; i < 100; i++) n++; println("no") } probe end { println("end") }',
        ['-DMAXACTION=10'], '40\n', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:92\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'act_int': ('global n probe begin { while (1) n++ } probe end { println("end ", n) }',
        ['-DMAXACTION_INTERRUPTIBLE=57'], '', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:34\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'act_u': ('global n probe begin { while (1) n++ } probe end { println("end ", n) }',
        ['-u', '-DMAXACTION=7'], '', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:34\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'act_fn': ('function f() { while (1) n++ } global n probe begin { f() } probe end { println("end ", n) }',
        ['-DMAXACTION=3'], '', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:26\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'act_straight': ('probe begin { a = 1; b = 2; c = 3; d = 4; e = 5; f = 6; g = 7; h = 8; println(a+b+c+d+e+f+g+h); exit() }',
        ['-DMAXACTION_INTERRUPTIBLE=3'], '', 1, 'ERROR: MAXACTION exceeded\nWARNING: Number of errors: 1, skipped probes: 0\n'),
    'nest_chain': ('function h() { return 1 } function g() { return h() } function f() { return g() } probe begin { println(f()); exit() }',
        ['-DMAXNESTING=2'], '', 1, "ERROR: MAXNESTING exceeded near identifier 'h' at <input>:1:10\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'nest_d': ('function f(n) { println(n); return n ? f(n - 1) : 0 } probe begin { f(10); exit() }',
        ['-DMAXNESTING=4'], '10\n9\n8\n7\n', 1, "ERROR: MAXNESTING exceeded near identifier 'f' at <input>:1:10\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'strlen_d': ('probe begin { s = "abcdefghijklmnopqrstuvwxyz"; println(s, " ", strlen(s)); t = sprintf("%s-%s", s, s); println(t); printf("%s|%d\\n", "0123456789abcdefghij", 7); u = s . "XYZ"; println(u); exit() }',
        ['-DMAXSTRINGLEN=16'], 'abcdefghijklmno 15\nabcdefghijklmno\n0123456789abcdefghij|7\nabcdefghijklmno\n', 0, ''),
    'mapent_d': ('global a probe begin { for (i = 0; i < 10; i++) { a[i] = i; println(i) } } probe end { println("end") }',
        ['-DMAXMAPENTRIES=4'], '0\n1\n2\n3\n', 1, "ERROR: Array overflow, check MAXMAPENTRIES near identifier 'a' at <input>:1:51\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'mapent_stat': ('global s probe begin { for (i = 0; i < 10; i++) { s[i] <<< i; println(i) } }',
        ['-DMAXMAPENTRIES=3'], '0\n1\n2\n', 1, "ERROR: Array overflow, check MAXMAPENTRIES near identifier 's' at <input>:1:51\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'mapent_sized': ('global a[6], b probe begin { for (i = 0; i < 6; i++) a[i] = i; println(a[5]); for (i = 0; i < 6; i++) b[i] = i; println("no") }',
        ['-DMAXMAPENTRIES=4'], '5\n', 1, "ERROR: Array overflow, check MAXMAPENTRIES near identifier 'b' at <input>:1:103\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'maxerr': ('global n probe timer.ms(10) { n++; println(n); if (n <= 5) error(sprintf("e%d", n)); if (n == 6) exit() } probe end { println("end") }',
        ['-DMAXERRORS=2'], '1\n2\n3\n', 1, 'ERROR: e1\nERROR: e2\nERROR: e3\nWARNING: Number of errors: 3, skipped probes: 0\n'),
    'maxerr_under': ('global n probe timer.ms(10) { n++; println(n); if (n <= 5) error(sprintf("e%d", n)); if (n == 6) exit() } probe end { println("end") }',
        ['-DMAXERRORS=5'], '1\n2\n3\n4\n5\n6\nend\n', 1, 'ERROR: e1\nERROR: e2\nERROR: e3\nERROR: e4\nERROR: e5\nWARNING: Number of errors: 5, skipped probes: 0\n'),
    'errprobe': ('probe begin { error("x") } probe end { println("end") } probe error { println("error probe") } probe error(-1) { println("error -1") }',
        [], 'error -1\nerror probe\n', 1, 'ERROR: x\nWARNING: Number of errors: 1, skipped probes: 0\n'),
    'errprobe_noerr': ('probe begin { exit() } probe end { println("end") } probe error { println("error probe") }',
        [], 'end\n', 0, ''),
    'errprobe_under': ('probe begin { error("x") } probe begin(1) { exit() } probe end { println("end") } probe error { println("error probe") }',
        ['-DMAXERRORS=1'], 'end\n', 1, 'ERROR: x\nWARNING: Number of errors: 1, skipped probes: 0\n'),
    'suppress': ('global n probe timer.ms(10) { n++; if (n < 4) error("boom"); if (n == 5) exit() } probe end { println(n, " ", 1 / (n - n)); println("after") } probe end(1) { println("end1") }',
        ['--suppress-handler-errors'], 'end1\n', 0, 'WARNING: Number of errors: 4, skipped probes: 0\n'),
    'nest_try_pure': ('function f(n) { if (n) f(n-1); return 0 } probe begin { try { f(100) } catch (e) { println("caught ", e) } println("after"); exit() }',
        [], 'after\n', 0, ''),
    'next_probe': ('probe begin { println("a"); if (1) next; println("b") } probe begin(1) { println("d"); exit() }',
        [], 'a\nd\n', 0, ''),
    'divmod_assign': ('global x probe begin { a = 10; try { a /= x } catch (e) { println(e) } a %= x; println("no") } probe end { println("end") }',
        [], 'division by 0\n', 1, "ERROR: division by 0 near identifier 'x' at <input>:1:77\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'end_error': ('probe begin { exit() } probe end { println("e0"); error("in end"); println("no") } probe end(1) { println("e1") }',
        [], 'e0\n', 1, 'ERROR: in end\nWARNING: Number of errors: 1, skipped probes: 0\n'),
    'act_fn_try': ('global n function f() { while (1) n++ } probe begin { try { f() } catch (e) { println("caught ", e) } println("after") }',
        [], '', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:35\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'next_fn_val': ('function f(x) { if (x) next; return 1 } function g:string(x) { if (x) next; return "s" } probe begin { println(f(1), "|", g(1), "|"); println(f(0), g(0)); try { f(1) } catch { println("no") } exit() }',
        [], '', 1, "ERROR: all functions exhausted near identifier 'f' at <input>:1:112\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'divassign_lit': ('probe begin { a = 10; a /= 0; println(a) }',
        [], '', 1, "ERROR: division by 0 near number '0' at <input>:1:28\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'divassign_arr': ('global x, a probe begin { a[1] = 10; a[1] /= x; println(a[1]) }',
        [], '', 1, "ERROR: division by 0 near identifier 'x' at <input>:1:46\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'modexpr': ('global x probe begin { a = 10; b = (a %= x) + 1; println(b) }',
        [], '', 1, "ERROR: division by 0 near identifier 'x' at <input>:1:42\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'suppress_many': ('global n probe timer.ms(5) { n++; if (n < 50) error("x"); else exit() } probe end { println(n) }',
        ['--suppress-handler-errors'], '50\n', 0, 'WARNING: Number of errors: 49, skipped probes: 0\n'),
    'suppress_act': ('global n probe begin { while (1) n++ } probe begin(1) { println("b1"); exit() }',
        ['--suppress-handler-errors'], 'b1\nn=5000\n', 0, 'WARNING: Number of errors: 1, skipped probes: 0\n'),
    'suppress_catch': ('probe begin { try { error("in try") } catch (e) { println("caught ", e) } error("out"); println("no") } probe begin(1) { exit() } probe error { println("errprobe") }',
        ['--suppress-handler-errors'], 'caught in try\n', 0, 'WARNING: Number of errors: 1, skipped probes: 0\n'),
    'loop_count': ('global n probe begin { while (1) n++ } probe begin(1) { println(n); exit() }',
        ['-DMAXERRORS=1', '-DMAXACTION_INTERRUPTIBLE=57'], '28\n', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:34\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'loop2_count': ('global n probe begin { for (i = 0; i < 1000; i++) { n++; n += 2; if (n > 1000000) println("x") } } probe begin(1) { println(n); exit() }',
        ['-DMAXERRORS=1', '-DMAXACTION_INTERRUPTIBLE=500'], '375\n', 1, 'ERROR: MAXACTION exceeded near keyword at <input>:1:66\nWARNING: Number of errors: 1, skipped probes: 0\n'),
    'loop_count_u': ('global n probe begin { while (1) n++ } probe begin(1) { println(n); exit() }',
        ['-u', '-DMAXERRORS=1', '-DMAXACTION_INTERRUPTIBLE=57'], '28\n', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:34\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    's10_9': ('probe begin { a = 1; b = 2; c = 3; d = 4; e = 5; f = 6; g = 7; h = 8; println(a+b+c+d+e+f+g+h); exit() }',
        ['-DMAXACTION_INTERRUPTIBLE=9'], '', 1, 'ERROR: MAXACTION exceeded\nWARNING: Number of errors: 1, skipped probes: 0\n'),
    's10_10': ('probe begin { a = 1; b = 2; c = 3; d = 4; e = 5; f = 6; g = 7; h = 8; println(a+b+c+d+e+f+g+h); exit() }',
        ['-DMAXACTION_INTERRUPTIBLE=10'], '36\n', 0, ''),
    'fn_5': ('function f() { a = 1; b = 2; c = 3; return a + b + c } probe begin { println(f()); exit() }',
        ['-DMAXACTION_INTERRUPTIBLE=5'], '', 1, 'ERROR: MAXACTION exceeded\nWARNING: Number of errors: 1, skipped probes: 0\n'),
    'fn_6': ('function f() { a = 1; b = 2; c = 3; return a + b + c } probe begin { println(f()); exit() }',
        ['-DMAXACTION_INTERRUPTIBLE=6'], '6\n', 0, ''),
    'disp_inc': ('global x probe begin { x++; exit() }',
        [], 'x=1\n', 0, ''),
    'disp_addeq': ('global x probe begin { x += 5; exit() }',
        [], 'x=5\n', 0, ''),
    'disp_arr_inc': ('global a probe begin { a[1]++; a[2] += 3; exit() }',
        [], 'a[2]=3\na[1]=1\n', 0, ''),
    'next_fn_stmt': ('global g function f(x) { g++; if (x) next; return 1 } probe begin { println("a"); f(0); println("b"); f(1); println("c") } probe end { println("end") }',
        [], 'a\nb\n', 1, "ERROR: all functions exhausted near identifier 'f' at <input>:1:103\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'next_fn_try': ('global g function f(x) { g++; if (x) next; return 1 } probe begin { try { f(1) } catch (e) { println("caught ", e) } exit() }',
        [], 'caught all functions exhausted\ng=1\n', 0, ''),
    'nest_try': ('global g function f(n) { g++; if (n) f(n-1); return 0 } probe begin { try { f(100) } catch (e) { println("caught ", e) } println("after ", g); exit() }',
        [], 'caught MAXNESTING exceeded\nafter 13\n', 0, ''),
    'cnt_if': ('global n probe begin { while (1) { n++; if (n % 2) { n += 0 } } } probe begin(1) { println(n); exit() }',
        ['-DMAXERRORS=1', '-DMAXACTION_INTERRUPTIBLE=100'], '29\n', 1, 'ERROR: MAXACTION exceeded near keyword at <input>:1:41\nWARNING: Number of errors: 1, skipped probes: 0\n'),
    'cnt_foreach': ('global a, n probe begin { for (i = 0; i < 50; i++) a[i] = i; foreach (k in a) n++ } probe begin(1) { println(n); exit() }',
        ['-DMAXERRORS=1', '-DMAXACTION_INTERRUPTIBLE=130'], '13\n', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:79\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'cnt_fn': ('global n function f() { return 1 } probe begin { while (1) n += f() } probe begin(1) { println(n); exit() }',
        ['-DMAXERRORS=1', '-DMAXACTION_INTERRUPTIBLE=100'], '33\n', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:60\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'cnt_after': ('global n probe begin { for (i = 0; i < 10; i++) n++; n = n * 2; m = n + 1; println(m); while (1) n++ } probe begin(1) { println(n); exit() }',
        ['-DMAXERRORS=1', '-DMAXACTION_INTERRUPTIBLE=100'], '21\n57\n', 1, "ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:98\nWARNING: Number of errors: 1, skipped probes: 0\n"),
    'cnt_straight_if': ('probe begin { x = 1; if (x) { a = 1; b = 2; c = 3 } else { d = 4 } println(x + a + b + c + d); exit() }',
        ['-DMAXACTION_INTERRUPTIBLE=6'], '', 1, 'ERROR: MAXACTION exceeded\nWARNING: Number of errors: 1, skipped probes: 0\n'),
    'cnt_straight_if7': ('probe begin { x = 1; if (x) { a = 1; b = 2; c = 3 } else { d = 4 } println(x + a + b + c + d); exit() }',
        ['-DMAXACTION_INTERRUPTIBLE=7'], '7\n', 0, ''),
}


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('limits')

    def build(name):
        script, opts = CASES[name][:2]
        r = run_stap(['-p4', '-r', krel, '-m', f'lim_{name}'] + opts + ['-e', script],
                     cwd=scratch)
        assert r.returncode == 0, f'{name}: {r.stderr}'

    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=2) as ex:
        list(ex.map(build, CASES))
    batch = guest.run_batch([f'{STAPRUN} lim_{n}.ko' for n in CASES],
                            scratch=str(scratch), timeout=60)
    guest.check_kernel_healthy(batch)
    return dict(zip(CASES, batch))


@pytest.mark.parametrize('name', list(CASES))
def test_limits(run, name):
    _, _, out, rc, err = CASES[name]
    r = run[name]
    assert (r.stdout, r.stderr, r.rc) == (out, err, rc)


def test_suppress_option_documented():
    r = run_stap(['-h'])
    assert '--suppress-handler-errors' in r.stdout


def test_bench_maps_scripts_translate(krel):
    """bench/maps.py's scripts go through pass 3 (the benchmark itself is
    run by hand)."""
    import sys
    from conftest import REPO
    sys.path.insert(0, str(REPO / 'bench'))
    import maps
    for name in maps.SCRIPTS:
        r = run_stap(['-p3', '-r', krel] + maps.DEFINES + ['-e', maps.script_text(name, 1000)])
        assert r.returncode == 0 and 'stp_probes' in r.stdout, f'{name}: {r.stderr}'
