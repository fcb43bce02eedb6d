# The lazy library load of pass 2 (translator/front/tapset.c,
# tapset_load_needed): only the tapset files declaring a name the script
# (then each file parsed) uses are parsed. What must not change with it:
# an error's suggestions still come from the whole library, a probe point
# starting with a pattern still matches every alias, a -I directory's
# files are parsed (and their parse errors reported) whatever the script,
# and a file is found through a name only its functions declare. The
# corpus check is testsuite/p3corpus.py (every script's pass-3 output,
# messages and status the same as with the whole library parsed).
import subprocess

from conftest import STAP


def stap(*args, cwd=None):
    r = subprocess.run([str(STAP), *args], capture_output=True, text=True,
                       timeout=120, cwd=cwd)
    return r.stdout, r.stderr, r.returncode


def test_function_suggestion_from_unparsed_file():
    """execname() lives in context.stp, which a script misspelling it does
    not name: the suggestion loads the rest of the library"""
    out, err, rc = stap('-p2', '-e', 'probe begin { println(execnam()) }')
    assert (out, rc) == ('', 1)
    assert err.startswith("<input>:1:23: error: unresolved function 'execnam'; "
                          "did you mean 'execname'?\n")


def test_alias_suggestion_from_unparsed_file():
    out, err, rc = stap('-p2', '-e', 'probe syscal.open { }')
    assert (out, rc) == ('', 1)
    assert err.startswith("<input>:1:7: error: no match for probe point 'syscal.open'; "
                          "did you mean 'syscall.open'?\n")


def test_pattern_first_component_matches_aliases():
    """sysc*.open names no file: every one is parsed"""
    out, err, rc = stap('-p2', '-e', 'probe sysc*.open { }')
    assert (err, rc) == ('', 0)
    assert '/* <- syscall.open = kprobe.function("__ia32_sys_open")?' in out


def test_include_dir_file_found_and_broken_one_reported(tmp_path):
    (tmp_path / 'ok.stp').write_text('function lz_fn() { return 7 }\n')
    out, err, rc = stap('-p2', '-I', str(tmp_path), '-e', 'probe begin { println(lz_fn()) }')
    assert (err, rc) == ('', 0)
    assert out.startswith('# functions\nlz_fn:long ()\n')
    (tmp_path / 'broken.stp').write_text('function lz_broken( {\n')
    out, err, rc = stap('-p2', '-I', str(tmp_path), '-e', 'probe begin { println(1) }')
    assert (out, rc) == ('', 1)
    assert err == (f"{tmp_path}/broken.stp:1:21: error: expected a parameter name, got '{{'\n"
                   "    1 | function lz_broken( {\n"
                   "      |                     ^\n"
                   "Pass 2: analysis failed.  [man error::pass2]\n")


def test_macro_names_count():
    """a library macro (linux/json.stpm) expands to a global of json.stp,
    which the script's own text never names: the expanded tokens count"""
    out, err, rc = stap('-p2', '-e', 'probe begin { @__json_output_check("x") }')
    assert (err, rc) == ('', 0)
    assert out.startswith('# globals\n__json_metric_output:long [string]\n')
