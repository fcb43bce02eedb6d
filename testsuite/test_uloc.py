# Where process() probes find their variables, beyond memory and single
# registers: small structs passed by value in a register or in pieces
# (DW_OP_piece over two registers), read member by member and pretty
# printed; a parameter without a location; struct, union and array locals
# in $$locals ({...}, [...]) and $$locals$; char arrays as members ([...]
# under '$', a string under '$$'). The program uprobes/upieces.c is built
# with gcc -g -O2, uprobes/pieces.stp runs on it in the guest, and the
# output must be what Debian's SystemTap 4.8 printed for the same program
# and script in the same guest, but for one line where 4.8 cannot read a
# member at an offset into a register (".y=?") and we read it.
import shutil
import subprocess

import guest
from conftest import STAPRUN, run_stap
from test_uprobes import HERE

# /usr/bin/staprun -c './upieces a b > /dev/null' (4.8's module of pieces.stp)
UPSTREAM = (
    '43 21\n{.a=43, .b=21}\n{.a=43, .b=21}\np={...}\np={.a=43, .b=21}\n'
    '4 6\n{.x=4, .y=?}\ns={...} k=0x6\ns={.x=4, .y=?} k=6\n'
    'm={...}\n'
    './upieces 3\n{.name="./upieces", .n=3}\nnm={...}\n'
    'lp={...} buf=[...] u={...}\n'
    'lp={.a=3, .b=6} buf="dddddddd\\003" u={.l=3, .c=[...]}\n9 100 3\n'
    '{.tag=[...], .n=5}\n{.l=31096, .c=[...]}\n{.c=[...], .l=30586}\n'
    '{.k=7, .u={...}}\n{.k=7, .u={.l=29041, .c="qq"}}\n"xy"\n'
    '{.tag="abc", .n=5}\n121\n')


def test_pieces_as_upstream(krel, tmp_path):
    shutil.copy(HERE / 'upieces.c', tmp_path)
    shutil.copy(HERE / 'pieces.stp', tmp_path)
    subprocess.run(['gcc', '-g', '-O2', '-o', 'upieces', 'upieces.c'], cwd=tmp_path,
                   check=True)
    r = run_stap(['-p4', '-r', krel, '-m', 'u_pieces', 'pieces.stp', './upieces'],
                 cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    batch = guest.run_batch([f"{STAPRUN} -c './upieces a b > /dev/null' u_pieces.ko"],
                            scratch=str(tmp_path), timeout=60)
    guest.check_kernel_healthy(batch)
    # s.y is the high half of %rdi: 4.8 prints '?', we read it
    assert (batch[0].stdout, batch[0].stderr, batch[0].rc) == \
        (UPSTREAM.replace('.y=?', '.y=5'), '', 0)


def test_member_of_register_struct_p2(tmp_path):
    # 4.8: "semantic error: cannot handle offset into register"; we accept
    shutil.copy(HERE / 'upieces.c', tmp_path)
    subprocess.run(['gcc', '-g', '-O2', '-o', 'upieces', 'upieces.c'], cwd=tmp_path,
                   check=True)
    r = run_stap(['-p2', '-e', 'probe process("./upieces").function("use_small") '
                  '{ println($s->y) }'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = str(tmp_path)
    assert r.stdout.replace(d, '@DIR@').splitlines()[-1] == \
        'process("@DIR@/upieces").function("use_small@@DIR@/upieces.c:19") ' \
        '/* pc=.dynamic+0x12e0 */ /* <- process("@DIR@/upieces").function("use_small@@DIR@/upieces.c:19") */'
