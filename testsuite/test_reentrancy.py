# test_reentrancy.py - a probe hit while this CPU's context is busy with
# another handler is skipped (runtime/context.c), and, as in 4.8's default
# INTERRUPTIBLE mode, counted and reported ("Skipped due to reentrancy")
# only with -t (STP_TIMING): 4.8's generated probe prologue increments
# skipped_count_reentrant under #ifdef STP_TIMING alone. The nested hit is
# made deterministic: the timer handler allocates, and the kmalloc
# tracepoint fires inside it on the same CPU. In the guest, one boot.
import re

import guest
from conftest import STAPRUN, run_stap

SCRIPT = '''%{
#include <linux/slab.h>
%}
function kmalloc_here() %{ /* guru */ kfree(kmalloc(64, GFP_ATOMIC)); %}
probe kernel.trace("kmem:kmalloc") { if (pid() < 0) println("never") }
probe timer.ms(10) { kmalloc_here() println("done") exit() }
'''
SKIPPED = re.compile(r'^WARNING: Number of errors: 0, skipped probes: 0\n'
                     r'WARNING: Skipped due to reentrancy: ([1-9]\d*)\n', re.M)


def test_reentrant_hits_reported_with_t_only(krel, tools, tmp_path):
    for name, opts in (('reent', []), ('reent_t', ['-t'])):
        r = run_stap(['-g', '-p4', '-r', krel, '-m', name] + opts + ['-e', SCRIPT],
                     cwd=tmp_path, timeout=300)
        assert r.returncode == 0, r.stderr
    batch = guest.run_batch([f'cd {tmp_path}; {STAPRUN} {m}.ko' for m in ('reent', 'reent_t')],
                            scratch=str(tmp_path), timeout=120)
    guest.check_kernel_healthy(batch)
    plain, timed = batch
    assert (plain.stdout, plain.stderr, plain.rc) == ('done\n', '', 0)
    assert timed.rc == 0 and timed.stdout.startswith('done\n'), timed
    assert SKIPPED.search(timed.stderr), timed.stderr
