# tapset_cases.py - shared by the test files of tapset functions and probe
# aliases that compare a table of cases with what 4.8 printed
# (test_tapset_misc.py, test_tapset_kmisc.py): build every case's script
# on the host (2 at a time), run each case's shell command in one guest
# boot, and compare errors raised in tapset functions without their
# tapset file's location.
import re
from concurrent.futures import ThreadPoolExecutor

import guest
from conftest import STAPRUN, run_stap

# the default command: the module alone
RUN = '{run} {mod}.ko'

TAPSET_LOCATION = re.compile(r"(/usr/share/systemtap/tapset/|\S*tapsets/)\S+:\d+:\d+")


def untapset(text):
    """An error in a tapset function names its definition: 4.8's under
    /usr/share/systemtap/tapset, ours under tapsets/; both read <tapset>."""
    return TAPSET_LOCATION.sub('<tapset>', text)


def run_cases(cases, krel, scratch, opts=None, args=None, files=None):
    """cases: name -> (script, command, ...); the command runs in scratch
    with {run} (staprun) and {mod} (the module, named after the case);
    opts and args: name -> stap options before and arguments after the
    script; files: name -> text written to scratch first. Returns name
    -> guest Result."""
    opts, args = opts or {}, args or {}
    for name, text in (files or {}).items():
        (scratch / name).write_text(text)

    def build(name):
        r = run_stap(opts.get(name, []) + ['-p4', '-r', krel, '-m', name, '-e',
                                           cases[name][0]] + args.get(name, []),
                     cwd=scratch)
        assert r.returncode == 0, f'{name}: {r.stderr}'

    with ThreadPoolExecutor(max_workers=2) as ex:
        list(ex.map(build, cases))
    commands = [f'cd {scratch}; ' + c[1].format(run=STAPRUN, mod=n) for n, c in cases.items()]
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=60)
    guest.check_kernel_healthy(batch)
    return dict(zip(cases, batch))
