# test_kmodc.py - the module's .mod.o from kept assembly (issue 17,
# translator/build/kmodc.c): the first build of a kernel tree (make)
# keeps kbuild's commands and an assembly of the .mod.c's shape in
# $SYSTEMTAP_DIR/cache/kbuild/; later builds (kdirect.c's replay) make
# the .mod.o from it, and the module is byte for byte the one make
# built. A template that cannot serve is not used: gcc compiles the
# .mod.c. Host only: -p4 for the guest's kernel, nothing is loaded.
import os
import subprocess
from pathlib import Path

from conftest import STAP

SCRIPT = 'probe timer.s(1) { println(ctime()) } probe kernel.function("vfs_read") { next }'


def build(krel, sysdir):
    """The module's bytes, built with an empty module cache."""
    for f in (Path(sysdir) / 'cache').glob('??/stap_*'):
        f.unlink()
    env = dict(os.environ, SYSTEMTAP_DIR=str(sysdir))
    r = subprocess.run([str(STAP), '-p4', '-r', krel, '-e', SCRIPT], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return Path(r.stdout.strip()).read_bytes()


def test_mod_o_from_template(krel, tmp_path):
    made = build(krel, tmp_path)		# make: commands and template kept
    tmpl = list((tmp_path / 'cache' / 'kbuild').glob('*.mod.s'))
    assert len(tmpl) == 1, list((tmp_path / 'cache' / 'kbuild').iterdir())
    text = tmpl[0].read_text()
    assert 'STPMODNAMEPLACEHOLDER' in text and '____versions' in text
    assert build(krel, tmp_path) == made	# replayed, the .mod.o assembled

    # the template is what the replay uses: a changed one shows in the module
    tmpl[0].write_text(text.replace('"depends=', '"dependz='))
    assert b'dependz=' in build(krel, tmp_path)

    # one it cannot use (no placeholder entry): gcc compiles the .mod.c,
    # and the template is made again
    tmpl[0].write_text(text.replace('\t.quad\t305419896\n', ''))
    assert build(krel, tmp_path) == made
    assert tmpl[0].read_text() == text
    assert build(krel, tmp_path) == made

    # at most 8 shapes a kernel tree: none learnt past them
    tmpl[0].unlink()
    fakes = [tmpl[0].with_name(tmpl[0].name.replace('.mod.s', f'{i}.mod.s')) for i in range(8)]
    for f in fakes:
        f.write_text('')
    assert build(krel, tmp_path) == made
    assert not tmpl[0].exists()
