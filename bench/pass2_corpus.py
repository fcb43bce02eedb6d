#!/usr/bin/python3
# bench/pass2_corpus.py - pass 2 (stap -p2) over Debian's systemtap-doc
# examples, each with the options and arguments of its .meta file (as
# testsuite/examples.py runs them), for this stap and Debian's stap 4.8 in
# the same run. Prints the total wall time over all examples, and over the
# examples both elaborate, with the ratio (upstream / ours; >1 means we are
# faster). Upstream fails many examples quickly here (no kernel debuginfo),
# which the "both elaborate" line leaves out. Not a test.
#
#   bench/pass2_corpus.py [N]     only the first N examples
import subprocess
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP / 'testsuite'))
from examples import STAP, examples, meta_args  # noqa: E402
import guest  # noqa: E402


def one(tool, script, krel):
    args = ['-p2', '-r', krel] + meta_args(script)
    if script.name not in args:
        args.append(script.name)
    t = time.monotonic()
    r = subprocess.run([str(tool)] + args, cwd=script.parent,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t, r.returncode == 0


def main():
    krel = guest.kernel_release()
    scripts = examples()
    if len(sys.argv) > 1:
        scripts = scripts[:int(sys.argv[1])]
    rows = []
    for s in scripts:
        rows.append((one(STAP, s, krel), one('/usr/bin/stap', s, krel)))
    both = [(o, u) for o, u in rows if o[1] and u[1]]
    print(f'{"examples":24} {"files":>6} {"ours (s)":>9} {"4.8 (s)":>9} {"ratio":>8}')
    for name, part in (('all', rows), ('both elaborate', both)):
        ours = sum(o[0] for o, _ in part)
        up = sum(u[0] for _, u in part)
        ratio = f'{up / ours:7.1f}x' if ours else '      -'
        print(f'{name:24} {len(part):>6} {ours:>9.2f} {up:>9.2f} {ratio:>8}')
    print(f'elaborated: ours {sum(o[1] for o, _ in rows)}, '
          f'4.8 {sum(u[1] for _, u in rows)} of {len(rows)}')


if __name__ == '__main__':
    main()
