# Process probes on the test program uprobes/upid.c (host side here):
# @cast without a module in a process probe reads the probed program's
# type, as 4.8 does.
import re
import shutil
import subprocess
from pathlib import Path

from conftest import run_stap

HERE = Path(__file__).resolve().parent / 'uprobes'
PROG = 'upid'


def test_cast_in_the_probed_program(tmp_path):
    # @cast without a module in a process probe: the program's type (4.8),
    # else the kernel's; read in user memory
    d = str(tmp_path)
    shutil.copy(HERE / f'{PROG}.c', tmp_path)
    subprocess.run(['gcc', '-g', '-O0', '-o', PROG, f'{PROG}.c'], cwd=d, check=True)
    r = run_stap(['-p3', '-e', f'probe process("{d}/{PROG}").function("tick") {{ '
                  'println(@cast($b, "struct box")->v + @cast($b, "box")->n, '
                  '@cast(task_current(), "task_struct")->pid) }'], cwd=d)
    assert r.returncode == 0, r.stderr
    assert re.search(r'stp_uread\(c, l->t_\d+, 8, 1\)', r.stdout)
    assert re.search(r'stp_uread\(c, l->t_\d+, 4, 1\)', r.stdout)
    assert re.search(r'stp_kread\(c, l->t_\d+, 4, 1\)', r.stdout)
    r = run_stap(['-p2', '-e', f'probe process("{d}/{PROG}").function("tick") {{ '
                  'println(@cast($b, "struct nosuch")->v) }'], cwd=d)
    assert (r.returncode, r.stderr.replace(d, '@DIR@').splitlines()[0]) == (
        1, f"<input>:1:{51 + len(d)}: error: type definition 'struct nosuch' not found "
        "in '@DIR@/upid'")
