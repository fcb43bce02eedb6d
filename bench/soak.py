#!/usr/bin/python3
# bench/soak.py - a soak of the output path, one command (not in CI):
# a module printing numbered lines as fast as the guest lets it (a
# timer.us(100) probe, LINES lines a hit) runs in the test guest for
# --duration seconds (default an hour), read by a checker in the guest
# that verifies every line as it arrives (numbers strictly increasing,
# each line whole) without keeping them, and samples stapio's resident
# set (VmRSS) every --interval seconds. Then SIGINT: the end probe's line
# must arrive last, complete, with the count of lines the probes printed,
# and the lines that did not arrive must be those of the records stapio
# reported lost (LINES a record, "There were N transport failures"). Prints the figures and the memory samples, and
# fails (exit 1) if a check fails or stapio's memory is not flat (the
# last half's peak more than --slack kB above the first half's).
#
#     nice bench/soak.py                     # an hour
#     nice bench/soak.py --duration 600      # ten minutes
import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'testsuite'))
import guest  # noqa: E402
from conftest import STAP, STAPRUN  # noqa: E402

LINES = 20
SCRIPT = f'''global seq
probe timer.us(100) {{
	for (i = 0; i < {LINES}; i++)
		printf("%d abcdefghijklmnopqrstuvwxyz0123456789\\n", seq++)
}}
probe end {{ printf("END %d\\n", seq) }}
'''
LINE_TAIL = ' abcdefghijklmnopqrstuvwxyz0123456789'

# runs in the guest: staprun with its stdout piped to us
CHECKER = r'''
import json, os, signal, subprocess, sys, threading, time
staprun, module, duration, interval = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
p = subprocess.Popen([staprun, module], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
samples, start, stop = [], time.monotonic(), threading.Event()

def sample():
    while not stop.wait(interval):
        try:
            st = dict(l.split(':', 1) for l in open(f'/proc/{p.pid}/status'))
            samples.append((round(time.monotonic() - start), int(st['VmRSS'].split()[0]),
                            int(st['VmHWM'].split()[0])))
        except (OSError, KeyError, ValueError):
            pass
        if time.monotonic() - start >= duration and p.poll() is None:
            p.send_signal(signal.SIGINT)

threading.Thread(target=sample, daemon=True).start()
last, lines, bad, end, after_end, errs = -1, 0, [], None, 0, []
errt = threading.Thread(target=lambda: errs.append(p.stderr.read().decode(errors='replace')))
errt.start()
for raw in p.stdout:
    line = raw.decode(errors='replace').rstrip('\n')
    if end is not None:
        after_end += 1
    elif line.startswith('END '):
        end = int(line[4:])
    else:
        n, _, tail = line.partition(' ')
        if not n.isdigit() or ' ' + tail != TAIL or int(n) <= last:
            if len(bad) < 5:
                bad.append(line[:100])
        else:
            last = int(n)
        lines += 1
rc = p.wait()
stop.set()
errt.join()
print(json.dumps({'rc': rc, 'lines': lines, 'last': last, 'end': end, 'bad': bad,
                  'after_end': after_end, 'stderr': errs[0] if errs else '',
                  'seconds': time.monotonic() - start, 'samples': samples}))
'''.replace('TAIL', repr(LINE_TAIL))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--duration', type=float, default=3600, help='seconds of output')
    ap.add_argument('--interval', type=float, default=30, help='seconds between samples')
    ap.add_argument('--slack', type=int, default=512, help='kB of growth allowed')
    args = ap.parse_args()
    krel = guest.kernel_release()
    with tempfile.TemporaryDirectory(prefix='stap-soak.', dir='/var/tmp') as work:
        r = subprocess.run([str(STAP), '-p4', '-r', krel, '-m', 'soak', '-e', SCRIPT],
                           cwd=work, capture_output=True, text=True)
        if r.returncode:
            sys.exit(f'build failed: {r.stderr}')
        Path(work, 'checker.py').write_text(CHECKER)
        cmd = (f'/usr/bin/python3 checker.py {STAPRUN} soak.ko {args.duration} '
               f'{args.interval}; echo "left $(grep -c ^soak /proc/modules)"')
        batch = guest.run_batch([cmd], scratch=work, timeout=int(args.duration) + 300,
                                memory_mb=512)
        guest.check_kernel_healthy(batch)
    out = batch[0].stdout.splitlines()
    if batch[0].rc != 0 or len(out) != 2:
        sys.exit(f'guest command failed: rc {batch[0].rc}\n{batch[0].stdout}\n{batch[0].stderr}')
    m = json.loads(out[0])
    samples = m['samples']
    lost = (m['end'] or 0) - m['lines']
    print(f'soak: {m["seconds"]:.0f} s, {m["lines"]} lines read '
          f'({m["lines"] / m["seconds"]:.0f}/s), end line: {m["end"]}, lost {lost}, '
          f'staprun rc {m["rc"]}, {out[1]}')
    print(f'stderr: {m["stderr"]!r}')
    print('stapio VmRSS kB at s: ' + ' '.join(f'{t}:{rss}' for t, rss, _ in samples))
    half = len(samples) // 2
    first = max((s[1] for s in samples[:half]), default=0)
    second = max((s[1] for s in samples[half:]), default=0)
    peak = max((s[2] for s in samples), default=0)
    print(f'VmRSS peak first half {first} kB, second half {second} kB; VmHWM {peak} kB')
    failures = []
    if m['rc'] != 0 or m['end'] is None or m['after_end'] or m['bad']:
        failures.append(f'output: rc {m["rc"]}, end {m["end"]}, bad {m["bad"]}, '
                        f'{m["after_end"]} lines after END')
    dropped = re.search(r'There were (\d+) transport failures', m['stderr'])
    if lost != (int(dropped.group(1)) * LINES if dropped else 0):
        failures.append(f'{lost} lines lost, and stapio reported {dropped and dropped.group(0)}')
    if lost < 0:
        failures.append(f'more lines ({m["lines"]}) than printed ({m["end"]})')
    if out[1] != 'left 0':
        failures.append('the module is left loaded')
    if len(samples) < 4 or second > first + args.slack:
        failures.append(f'memory not flat: {first} kB then {second} kB')
    for f in failures:
        print('FAIL:', f)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
