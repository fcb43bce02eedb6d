#!/usr/bin/python3
# bench/pass1_corpus.py - pass 1 (stap -p1) over the whole real-world corpus:
# Debian's systemtap-doc examples and the 4.8 tapset library, each file
# parsed as a script, for this stap and Debian's stap 4.8 in the same run.
# Prints total wall time per corpus and the ratio (upstream / ours; >1 means
# we are faster). Upstream's pass 1 also parses its whole tapset library for
# every script, which is part of what a user waits for. Not a test.
import os
import sys
import time
import subprocess
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP / 'testsuite'))
from corpus import load_record, options_for  # noqa: E402
import guest  # noqa: E402

OURS = Path(os.environ.get('STAP_BUILDDIR', TOP)) / 'translator' / 'stap'


def total(tool, entries, krel, extra):
    t = time.monotonic()
    for path, args, _ in entries:
        subprocess.run([str(tool), '-r', krel] + extra + ['-p1'] + options_for(path)
                       + [str(path)] + args, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return time.monotonic() - t


def main():
    krel = guest.kernel_release()
    entries = load_record()
    print(f'{"corpus":10} {"files":>6} {"ours (s)":>9} {"4.8 (s)":>9} {"ratio":>8}')
    for name in ('examples', 'tapset'):
        part = [e for e in entries if f'/systemtap/{name}/' in str(e[0])]
        ours = total(OURS, part, krel, ['-I', '/usr/share/systemtap/tapset'])
        up = total('/usr/bin/stap', part, krel, [])
        print(f'{name:10} {len(part):>6} {ours:>9.2f} {up:>9.2f} {up / ours:>7.1f}x',
              flush=True)


if __name__ == '__main__':
    main()
