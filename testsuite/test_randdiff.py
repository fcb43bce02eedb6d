# A bounded batch of random scripts (randgen.py) run under ours and under
# Debian's SystemTap 4.8 in one guest boot by randdiff.py, with a fixed
# seed: stdout, stderr and exit status must be the same for every script.
# A divergence is written (unreduced, to keep the test short) to the test's
# temporary directory; `randdiff.py --seed 7 --count 6 --blocks 12` run by
# hand reduces it. The long campaign is in HACKING.md, "Running tests".
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED, COUNT, BLOCKS = 7, 6, 12


def test_randdiff(tools, tmp_path):
    out = tmp_path / 'out'
    r = subprocess.run([sys.executable, str(HERE / 'randdiff.py'), '--seed', str(SEED),
                        '--count', str(COUNT), '--blocks', str(BLOCKS), '--no-reduce',
                        '--out', str(out), '--scratch', str(tmp_path / 'work')],
                       capture_output=True, text=True, timeout=1500)
    report = json.loads((out / 'report.json').read_text())
    assert report['scripts'] == COUNT and report['invalid_blocks'] == 0 \
        and report['invalid_scripts'] == 0, r.stdout
    diverged = {d['name']: (out / (d['name'] + '.stp')).read_text()
                for d in report['divergences']}
    assert r.returncode == 0 and not diverged, r.stdout + r.stderr[-3000:]
