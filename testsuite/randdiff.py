#!/usr/bin/python3
# randdiff.py - differential testing of random scripts (randgen.py) against
# Debian's SystemTap 4.8: generate COUNT scripts of BLOCKS test blocks
# each, check them at pass 2 with both implementations on the host, build
# the modules of both with -p4 (2 at a time), run them all in one guest
# boot, and compare stdout, stderr (normalised as test_diff.py does) and
# exit status. The scripts go in chunks (--chunk, one guest boot each;
# report.json is rewritten after each, so a campaign stopped early, or by
# --max-seconds, still reports what ran; blocks_run counts the blocks both
# got past). Each divergence is cut down to its test block and reduced
# (delta debugging over statements and blocks, many candidates packed into
# one module and run in one boot per round) and written to OUT as NAME.stp,
# with what each implementation printed (NAME.ours, NAME.up), ready to
# become a testsuite/diff/ case.
#
#   randdiff.py --seed S --count N [--blocks B] [--chunk C] [--max-seconds T]
#               [--group G] [--out DIR] [--no-reduce]
#
# --group G runs each module once per G blocks (`staprun M.ko rd_group=K`,
# every block's probe starting with `if (rd_group != K) next`): 4.8 loses
# what begin probes print past about 8 KB (sometimes silently), so a
# module of many blocks is run in slices, each under that limit (see
# HACKING.md, "Running tests").
#
# Every 4th script ends with a block that hits a limit on purpose (see
# randgen.py). Exit status: 0 when nothing diverged, 1 otherwise.
import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP / 'testsuite'))
import guest  # noqa: E402
import randgen  # noqa: E402
from record_upstream import UPSTREAM_STAP, UPSTREAM_STAPRUN, upstream_runtime  # noqa: E402

OURS_STAP = TOP / 'translator' / 'stap'
OURS_STAPRUN = TOP / 'staprun' / 'staprun'
RUN_TIMEOUT = 40
# each global array preallocates MAXMAPENTRIES rows: a packed module of
# many blocks needs more than the guest's default 256 MB
GUEST_MB = 1024
PACK_MAX = 25             # candidates of one divergence in a reduction pack
MARK = re.compile(r'^#(\d+) \w+$|^#done$', re.M)
TAPSET_LOCATION = re.compile(
    r"(near identifier '[^']+' at )(/usr/share/systemtap/tapset/|\S*tapsets/)\S+:\d+:\d+")
# 4.8's pass-2 warning on the host that its guest run does not print
WERROR = 'cc1: all warnings being treated as errors'
# 4.8 in the guest loses what begin probes print past about 8 KB
TRANSPORT_LOSS = 'transport failures. Try stap -s'
KERNEL_SYMS = 'WARNING: Kernel function symbol table missing [man warning::symbols]\n'


def normalise(text):
    return TAPSET_LOCATION.sub(r'\1<tapset>', text)


class Impl:
    """One implementation: how it checks (-p2), builds (-p4) and runs."""

    def __init__(self, name, stap, staprun, extra):
        self.name, self.stap, self.staprun, self.extra = name, stap, staprun, extra

    def argv(self, npass, krel, script, module=None):
        a = [str(self.stap), *self.extra, '-r', krel, f'-p{npass}']
        if module:
            a += ['-m', module]
        return a + [script]


def run(argv, cwd, timeout=900):
    try:
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, -1, '', 'timed out')


class Ctx:
    def __init__(self, scratch, krel, jobs):
        self.scratch, self.krel, self.jobs = Path(scratch), krel, jobs
        self.ours = Impl('ours', OURS_STAP, OURS_STAPRUN, [])
        self.up = Impl('up', UPSTREAM_STAP, UPSTREAM_STAPRUN, ['-R', upstream_runtime()])
        for i in (self.ours, self.up):
            (self.scratch / i.name).mkdir(parents=True, exist_ok=True)
        self.boots = 0
        self.builds = 0

    def write(self, name, text):
        for i in (self.ours, self.up):
            (self.scratch / i.name / f'{name}.stp').write_text(text)

    def check(self, name, ours_pass=2):
        """[ours, up] CompletedProcess of -p2 on NAME.stp (ours at
        ours_pass: pass 3 finds `break` outside a loop)."""
        out = []
        for i, npass in ((self.ours, ours_pass), (self.up, 2)):
            r = run(i.argv(npass, self.krel, f'{name}.stp'), self.scratch / i.name, 120)
            out.append(r)
        return out

    def check_text(self, name, text, ours_pass=2):
        self.write(name, text)
        o, u = self.check(name, ours_pass)
        return o.returncode, u.returncode

    def check_many(self, texts):
        """check_text (ours at pass 3) of each text, self.jobs at a time."""
        def one(k):
            return self.check_text(f'cand{k}', texts[k], 3)
        with ThreadPoolExecutor(max_workers=self.jobs) as ex:
            return list(ex.map(one, range(len(texts))))

    def build_all(self, names):
        """-p4 every name with both (self.jobs at a time): name -> (ours, up)
        CompletedProcess."""
        jobs = [(n, i) for n in names for i in (self.up, self.ours)]

        def one(job):
            n, i = job
            return run(i.argv(4, self.krel, f'{n}.stp', n), self.scratch / i.name)
        with ThreadPoolExecutor(max_workers=self.jobs) as ex:
            res = list(ex.map(one, jobs))
        self.builds += len(jobs)
        got = {}
        for (n, i), r in zip(jobs, res):
            got.setdefault(n, {})[i.name] = r
        return {n: (got[n]['ours'], got[n]['up']) for n in names}

    def run_all(self, names, groups=None):
        """Run the built modules of both in one guest boot: name -> (ours
        Result, up Result). groups: name -> its number of rd_group slices
        (see guarded()), run one after the other and joined."""
        cmds, runs = [], []
        for n in names:
            for g in range(1, (groups or {}).get(n, 0) + 1) or [0]:
                arg = f' rd_group={g}' if g else ''
                for i in (self.ours, self.up):
                    cmds.append(f'cd {self.scratch / i.name} && {i.staprun} {n}.ko{arg}')
                runs.append(n)
        if not cmds:
            return {}
        self.boots += 1
        try:
            batch = guest.run_batch(cmds, scratch=str(self.scratch), timeout=RUN_TIMEOUT,
                                    memory_mb=GUEST_MB)
        except guest.GuestDied as e:
            if any(r.rc is not None or r.timed_out for r in e.batch):
                raise
            self.boots += 1
            batch = guest.run_batch(cmds, scratch=str(self.scratch), timeout=RUN_TIMEOUT,
                                    memory_mb=GUEST_MB)
        guest.check_kernel_healthy(batch)
        got = {}
        for k, n in enumerate(runs):
            got.setdefault(n, []).append((batch[2 * k], batch[2 * k + 1]))
        return {n: (joined([r[0] for r in rs]), joined([r[1] for r in rs]))
                for n, rs in got.items()}


def joined(results):
    """The runs of one module's slices as one: outputs in order, the
    first failing status."""
    if len(results) == 1:
        return results[0]
    rc = next((r.rc for r in results if r.rc != 0), 0)
    r = guest.Result(results[0].command, ''.join(r.stdout for r in results),
                     ''.join(r.stderr for r in results), rc,
                     any(r.timed_out for r in results))
    r.slices = results
    return r


def silent_loss(o, u):
    """A slice (--group) whose end 4.8 lost with no message: ours printed
    it to its "#done", 4.8 stopped before, both with status 0 and nothing
    on stderr (4.8's transport past about 8 KB)."""
    return (len(MARK.findall(o.stdout)) and '#done' in o.stdout and
            '#done' not in u.stdout and o.rc == 0 and u.rc == 0 and
            not o.stderr.strip() and not u.stderr.strip())


def guarded(items, group):
    """The script of items run in slices of `group` blocks: a global
    rd_group (set by staprun) picks the slice, each block's probes return
    at once in the others, and the exit probe marks the end of a slice.
    The slices' count too."""
    items = [it.copy() for it in items]
    last = 0
    for it in items:
        hdr = it.parts[0][0] if it.parts else ''
        if it.block and hdr.startswith(('probe begin(', 'probe end')):
            g = (it.block - 1) // group + 1
            it.parts[0][1].insert(0, randgen.leaf(f'if (rd_group != {g}) next'))
            last = max(last, g)
        elif not it.block and hdr.startswith('probe begin('):
            it.parts[0][1].insert(0, randgen.leaf('println("#done")'))
    head = randgen.leaf('global rd_group')
    head.block = 0
    return [head] + items, last


def outcome(r):
    return (r.stdout, normalise(r.stderr), r.rc)


def sections(stdout):
    """block id -> its stdout section (from its marker to the next), and
    whether the run got past it (a next marker follows)."""
    marks = list(MARK.finditer(stdout))
    out = {}
    for k, m in enumerate(marks):
        if m.group(1) is None:
            continue
        end = marks[k + 1].start() if k + 1 < len(marks) else len(stdout)
        out[int(m.group(1))] = (stdout[m.start():end], k + 1 < len(marks))
    return out


# ---------------------------------------------------------------- blocks

def blocks_of(items):
    """block id -> its top-level items (block 0 is the exit probe)."""
    out = {}
    for it in items:
        out.setdefault(it.block, []).append(it)
    return out


def block_text(items, old, new):
    """The rendered items of block old renamed as block new."""
    text = randgen.render(items)
    text = re.sub(rf'\bb{old}_', f'c{new}_', text)
    text = text.replace(f'probe begin({old})', f'probe begin({new})')
    text = text.replace(f'println("#{old} ', f'println("#{new} ')
    text = text.replace(f'println("end {old}")', f'println("end {new}")')
    return text


def pack(texts):
    """One script of independent block texts (numbered 1..n) ending in
    the exit probe."""
    n = len(texts)
    return ''.join(texts) + f'probe begin({n + 1}) {{\n\tprintln("#done")\n\texit()\n}}\n'


def nodes(items):
    """Every (list, index) position of a node under items, the top-level
    probe's marker line excepted, outermost first."""
    out = []

    def walk(lst, top):
        for k, n in enumerate(lst):
            if not top and n.parts is None and n.head.startswith('println("#'):
                continue
            out.append((lst, k))
            if n.parts:
                for _, body in n.parts:
                    walk(body, False)
    walk(items, True)
    return out


def candidates(items):
    """Smaller variants of a block's items: each node removed, each
    compound replaced by one of its bodies, runs of a body's statements
    removed (halves, quarters)."""
    out = []
    positions = nodes(items)
    for idx in range(len(positions)):
        def variant(edit):
            c = [it.copy() for it in items]
            lst, k = nodes(c)[idx]
            edit(lst, k)
            return c
        lst, k = positions[idx]
        n = lst[k]
        if not (n.parts and n.parts[0][0].startswith('probe begin(')):
            out.append(variant(lambda l, k: l.pop(k)))
        if n.parts and not n.parts[0][0].startswith(('probe ', 'function ', 'for',
                                                     'while')):
            for p in range(len(n.parts)):
                out.append(variant(lambda l, k, p=p: l.__setitem__(slice(k, k + 1), l[k].parts[p][1])))
    # runs of statements in each body
    for idx, (lst, k) in enumerate(positions):
        n = lst[k]
        if not n.parts:
            continue
        for p, (_, body) in enumerate(n.parts):
            m = len(body)
            for size in (m // 2, m // 4):
                if size < 2:
                    continue
                for start in range(0, m, size):
                    c = [it.copy() for it in items]
                    lst2, k2 = nodes(c)[idx]
                    del lst2[k2].parts[p][1][start:start + size]
                    out.append(c)
    # a variant that lost the probe or its marker line is no use
    return [c for c in out if 'println("#' in randgen.render(c)]


def size(items):
    return len(randgen.render(items))


# ---------------------------------------------------------------- reduce

def reduce_runtime(ctx, todo, rounds, deadline):
    """todo: list of [items, block id]; shrink each while its section of
    ours and 4.8's output still differ. One packed module (of both) and
    one boot per round for all of them."""
    for rnd in range(rounds):
        if time.monotonic() > deadline:
            break
        texts = []
        for t, (items, bid) in enumerate(todo):
            seen, cands = set(), []
            for c in sorted(candidates(items), key=size):
                txt = block_text(c, bid, 1)
                if txt not in seen and len(seen) < PACK_MAX:
                    seen.add(txt)
                    cands.append(c)
            # valid alone with both implementations
            rcs = ctx.check_many([block_text(c, bid, 1) + 'probe begin(2) { exit() }\n'
                                  for c in cands])
            texts += [(t, c, bid) for c, rc in zip(cands, rcs) if rc == (0, 0)]
        if not texts:
            break
        name = f'red{rnd}'
        ctx.write(name, pack([block_text(c, bid, j + 1) for j, (t, c, bid) in enumerate(texts)]))
        b = ctx.build_all([name])[name]
        if b[0].returncode or b[1].returncode:
            print(f'reduce round {rnd}: pack failed to build '
                  f'({b[0].stderr[-300:]}{b[1].stderr[-300:]})', flush=True)
            break
        try:
            ro, ru = ctx.run_all([name])[name]
        except (guest.GuestDied, guest.KernelUnhealthy) as e:
            print(f'reduce round {rnd}: guest failed: {str(e)[:2000]}', flush=True)
            break
        so, su = sections(ro.stdout), sections(ru.stdout)
        progress = False
        best = {}
        for j, (t, c, bid) in enumerate(texts):
            a, b_ = so.get(j + 1), su.get(j + 1)
            if a and b_ and a[1] and b_[1] and a[0] != b_[0]:
                if t not in best or size(c) < size(best[t]):
                    best[t] = c
        for t, c in best.items():
            if size(c) < size(todo[t][0]):
                todo[t][0] = c
                progress = True
        print(f'reduce round {rnd}: {len(texts)} candidates, '
              f'{len(best)} of {len(todo)} shrank', flush=True)
        if not progress:
            break
    return todo


def reduce_static(ctx, items, keep):
    """Shrink items while keep((ours rc, up rc)) holds at pass 2."""
    cur = items
    changed = True
    while changed:
        changed = False
        for c in sorted(candidates(cur), key=size):
            if size(c) >= size(cur):
                continue
            if keep(ctx.check_text('stat', randgen.render(c))):
                cur, changed = c, True
                break
    return cur


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description='differential testing of random scripts against 4.8')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=10)
    ap.add_argument('--blocks', type=int, default=16)
    ap.add_argument('--limits-every', type=int, default=4)
    ap.add_argument('--out', default='randdiff-out')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--rounds', type=int, default=6)
    ap.add_argument('--no-reduce', action='store_true')
    ap.add_argument('--reduce-max', type=int, default=6,
                    help='divergences reduced (the others are written whole)')
    ap.add_argument('--scratch', help='keep the work files here')
    ap.add_argument('--chunk', type=int, default=10,
                    help='scripts built and run per guest boot (report.json is '
                    'rewritten after each chunk)')
    ap.add_argument('--max-seconds', type=int, default=0,
                    help='start no new chunk after this many seconds')
    ap.add_argument('--group', type=int, default=0,
                    help='run each module once per GROUP blocks (0: once)')
    args = ap.parse_args()
    t0 = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    krel = guest.kernel_release()
    with tempfile.TemporaryDirectory(prefix='randdiff-', dir='/var/tmp') as tmp:
        scratch = Path(args.scratch or tmp)
        ctx = Ctx(scratch, krel, args.jobs)
        report = run_campaign(ctx, args, out)
    write_report(ctx, out, report, t0)
    print(json.dumps({k: v for k, v in report.items() if k != 'divergences'}))
    for d in report['divergences']:
        print(f'DIVERGENCE {d["name"]}: {d["what"]}')
    return 1 if report['divergences'] else 0


def script_name(seed, i):
    return f'rg{seed}_{i}'


def run_campaign(ctx, args, out):
    """Generate, check, build and run the scripts in chunks of args.chunk
    (one guest boot each), writing report.json after every chunk so that
    a campaign stopped at any point reports what it ran."""
    report = {'seed': args.seed, 'scripts': 0, 'blocks': 0, 'blocks_run': 0,
              'invalid_blocks': 0, 'invalid_scripts': 0, 'chunks': 0,
              'upstream_losses': 0, 'upstream_silent_losses': 0,
              'seconds_check': 0, 'seconds_build': 0, 'seconds_run': 0,
              'divergences': []}
    todo = []
    t0 = time.monotonic()
    for first in range(0, args.count, args.chunk):
        if args.max_seconds and time.monotonic() - t0 > args.max_seconds:
            print(f'time budget spent: stopping after {report["scripts"]} scripts',
                  flush=True)
            break
        todo += run_chunk(ctx, args, out, report,
                          range(first, min(first + args.chunk, args.count)))
        report['chunks'] += 1
        write_report(ctx, out, report, t0)
    if todo and not args.no_reduce:
        # the first few only: a pack holds PACK_MAX candidates of each
        few = todo[:args.reduce_max]
        red = reduce_runtime(ctx, [[t[0], t[1]] for t in few], args.rounds,
                             time.monotonic() + 1800)
        for t, (items, bid) in zip(few, red):
            t[0] = items
        for items, bid, n, what, res in few:
            record(ctx, out, report, f'{n}_b{bid}',
                   block_text(items, bid, 1) + 'probe begin(2) {\n\texit()\n}\n', what, res,
                   count=False)
    return report


def write_report(ctx, out, report, t0):
    report['seconds'] = round(time.monotonic() - t0)
    report['boots'] = ctx.boots
    report['builds'] = ctx.builds
    (out / 'report.json').write_text(json.dumps(report, indent=1) + '\n')


def static_check(ctx, args, i):
    """Generate script i and check it at pass 2 with both: (name, items
    both accept, [(block, items, rcs) one rejects], [block both reject
    with 4.8's message])."""
    seed = args.seed * 100000 + i
    limits = args.limits_every and i % args.limits_every == args.limits_every - 1
    items = randgen.generate(seed, args.blocks, limits)
    name = script_name(args.seed, i)
    ctx.write(name, randgen.render(items))
    o, u = ctx.check(name)
    static, invalid = [], []
    if o.returncode or u.returncode:
        bl = blocks_of(items)
        keep = [0]
        for bid, its in bl.items():
            if bid == 0:
                continue
            one = f'{name}_one'
            rc = ctx.check_text(one, randgen.render(its + bl[0]))
            if rc == (0, 0):
                keep.append(bid)
            elif rc[0] == rc[1]:
                invalid.append((bid, ctx.check(one)[1].stderr[-600:]))
            else:
                static.append((bid, its + bl[0], rc))
        items = [it for it in items if it.block in keep]
        ctx.write(name, randgen.render(items))
    return name, items, static, invalid


def run_chunk(ctx, args, out, report, indices):
    """One chunk of scripts: returns the run-time divergences to reduce
    ([items, block, script, what, results])."""
    scripts = {}
    t = time.monotonic()
    # pass 2 on the host: drop the blocks either rejects (a generator bug,
    # reported), keep apart the scripts only one rejects
    with ThreadPoolExecutor(max_workers=ctx.jobs) as ex:
        checked = list(ex.map(lambda i: static_check(ctx, args, i), indices))
    for name, items, static, invalid in checked:
        for bid, msg in invalid:
            report['invalid_blocks'] += 1
            print(f'{name}: block {bid} rejected by both:\n{msg}', flush=True)
        for bid, its, rc in static:
            keep = (lambda r, rc=rc: r == rc)
            red = reduce_static(ctx, its, keep) if not args.no_reduce else its
            what = f'pass 2: ours rc {rc[0]}, 4.8 rc {rc[1]}'
            record(ctx, out, report, f'{name}_b{bid}', randgen.render(red), what, None)
        scripts[name] = items
        report['scripts'] += 1
        report['blocks'] += len(blocks_of(items)) - 1
    report['seconds_check'] += round(time.monotonic() - t)
    groups = {}
    if args.group:
        for name, items in scripts.items():
            g_items, groups[name] = guarded(items, args.group)
            ctx.write(name, randgen.render(g_items))
    # build both on the host, run both in one boot
    t = time.monotonic()
    print(f'building {len(scripts)} scripts ({report["blocks"]} blocks so far) with both',
          flush=True)
    built = ctx.build_all(list(scripts))
    report['seconds_build'] += round(time.monotonic() - t)
    ok = []
    for n, (o, u) in built.items():
        if o.returncode == 0 and u.returncode and WERROR in u.stderr:
            # 4.8's C trips gcc's -Werror: a generator bug (randgen avoids
            # the constructs known to), not a divergence
            report['invalid_scripts'] += 1
            errs = [ln for ln in u.stderr.splitlines() if 'error:' in ln]
            print(f'{n}: 4.8 fails to compile its C:\n' + '\n'.join(errs[:5]), flush=True)
        elif o.returncode or u.returncode:
            what = f'pass 4: ours rc {o.returncode}, 4.8 rc {u.returncode}'
            record(ctx, out, report, n, randgen.render(scripts[n]), what,
                   (o.stderr[-2000:], u.stderr[-2000:]))
        else:
            ok.append(n)
    t = time.monotonic()
    print(f'running {len(ok)} scripts with both in the guest', flush=True)
    ran = ctx.run_all(ok, groups)
    report['seconds_run'] += round(time.monotonic() - t)
    todo = []
    for n in ok:
        ro, ru = ran[n]
        so, su = sections(ro.stdout), sections(ru.stdout)
        bl = blocks_of(scripts[n])
        # a block ran when both got past its section, or reached it if it
        # is the last (the limit block); an uncaught error ends a run
        # 4.8 lost the output past about 8 KB printed by the begin probes
        # (whatever staprun -b says): compare the blocks it printed whole,
        # count only those as run
        loss = TRANSPORT_LOSS in ru.stderr and TRANSPORT_LOSS not in ro.stderr
        lost = []
        # (with --group, in each slice that lost output)
        slices = list(zip(getattr(ro, 'slices', [ro]), getattr(ru, 'slices', [ru])))
        for g, (o, u) in enumerate(slices, 1):
            if silent_loss(o, u):
                loss = True
                report['upstream_silent_losses'] += 1
                print(f'{n}: 4.8 lost the end of slice {g} silently', flush=True)
            elif TRANSPORT_LOSS not in u.stderr or TRANSPORT_LOSS in o.stderr:
                continue
            mine = [b for b in bl if b and (len(slices) == 1 or
                                            min((b - 1) // args.group + 1, len(slices)) == g)]
            # from the first block whose section 4.8 did not print whole
            # (later ones may follow, after bytes of a broken message), and
            # the one before it, whose section may end in those bytes
            first = min((b for b in mine if not (b in su and su[b][1])), default=None)
            if first is not None:
                lost += [b for b in mine if b >= first - 1]
        report['blocks_run'] += sum(
            1 for b in bl if b and b not in lost and b in so and b in su
            and ((so[b][1] and su[b][1]) or b == max(bl)))
        if outcome(ro) == outcome(ru):
            continue
        if loss:
            report['upstream_losses'] += 1
            bad = [b for b in bl if b and b not in lost and so.get(b) != su.get(b)]
            print(f'{n}: 4.8 lost its output from block {min(lost, default=0)} '
                  f'(transport failure)', flush=True)
            if not bad:
                continue
        else:
            bad = [b for b in bl if b and so.get(b, (None,))[0] != su.get(b, (None,))[0]]
        if not bad:
            # same stdout: stderr or status differ (a limit block)
            bad = [max(bl)]
        what = describe(ro, ru)
        for tag, r in (('ours', ro), ('up', ru)):
            (out / f'{n}.{tag}').write_text(
                f'--- stdout\n{r.stdout}--- stderr\n{r.stderr}--- rc {r.rc}\n')
        for first in bad[:4]:
            text = block_text(bl[first], first, 1) + 'probe begin(2) {\n\texit()\n}\n'
            record(ctx, out, report, f'{n}_b{first}', text, what, (ro, ru))
            if first == max(bl) and (ro.rc != ru.rc or
                                     normalise(ro.stderr) != normalise(ru.stderr)):
                # the limit block: reported whole with the exit probe
                continue
            todo.append([bl[first], first, n, what, (ro, ru)])
    return todo


def describe(ro, ru):
    what = []
    if ro.stdout != ru.stdout:
        what.append('stdout')
    if normalise(ro.stderr) != normalise(ru.stderr):
        what.append('stderr')
    if ro.rc != ru.rc:
        what.append(f'status {ro.rc} vs {ru.rc}')
    return 'run: ' + ', '.join(what)


def record(ctx, out, report, name, text, what, res, count=True):
    (out / f'{name}.stp').write_text(f'# randdiff: {what}\n' + text)
    if res:
        for tag, r in zip(('ours', 'up'), res):
            if isinstance(r, str):
                (out / f'{name}.{tag}').write_text(r)
            else:
                (out / f'{name}.{tag}').write_text(
                    f'--- stdout\n{r.stdout}--- stderr\n{r.stderr}--- rc {r.rc}\n')
    if count:
        report['divergences'].append({'name': name, 'what': what})
        print(f'divergence {name}: {what}', flush=True)


if __name__ == '__main__':
    sys.exit(main())
