#!/usr/bin/python3
# bootstrap.py - writes the first draft of syscalls.tbl (the table that
# gen_syscalls.py turns into tapsets/linux/syscalls_*.stp) from three facts
# about the 6.1 x86_64 kernel and the public interface to match:
#   enter-formats-6.1.txt  the guest's /sys/kernel/tracing/events/syscalls/
#                          sys_enter_*/format fields (argument names, types)
#   unistd_64-6.1.txt      syscall numbers (the kernel headers' unistd_64.h)
#   upstream-vars.txt      `stap -L 'nd_syscall.*'` of SystemTap 4.8: the
#                          probe names and their documented variable names
# Each argument becomes a variable read from the user registers by its C
# type; argstr defaults to the variables in order (%d, %u, %p, or the
# quoted string). The table is then edited by hand where the upstream
# format differs (decoded flags, structures); rerunning this script would
# lose those edits, so it refuses to overwrite an existing table.
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# upstream names that the x86_64 kernel spells differently
ALIASES = {
    'fstatat': ['newfstatat'], 'pread': ['pread64'], 'pwrite': ['pwrite64'],
    'mmap2': ['mmap'], 'stat': ['newstat'], 'fstat': ['newfstat'],
    'lstat': ['newlstat'], 'uname': ['newuname'],
    'getdents': ['getdents', 'getdents64'],
    'epoll_create': ['epoll_create', 'epoll_create1'],
    'eventfd': ['eventfd', 'eventfd2'],
    'inotify_init': ['inotify_init', 'inotify_init1'],
    'pipe': ['pipe', 'pipe2'], 'signalfd': ['signalfd', 'signalfd4'],
    'sendfile': ['sendfile64'],
}


def read_formats():
    fmts, cur = {}, None
    for line in open(os.path.join(HERE, 'enter-formats-6.1.txt')):
        if line.startswith('== '):
            cur = line[3:].strip()
            fmts[cur] = []
            continue
        decl = line.split(';')[0].strip()
        if decl.startswith('int __syscall_nr'):
            continue
        m = re.match(r'(.*?)\s*([A-Za-z_0-9]+)$', decl)
        fmts[cur].append((m.group(1), m.group(2)))
    return fmts


def kind(ctype):
    t = ctype.replace('const ', '').replace('__user', '').strip()
    if re.match(r'(unsigned )?char \*', t) and ctype.startswith('const'):
        return 's'
    if '*' in t or t.endswith('_t') and t.startswith('cap_user'):
        return 'p'
    if t in ('unsigned long', 'size_t', 'aio_context_t', 'u64', '__u64'):
        return 'ul'
    if t in ('long', 'off_t', 'loff_t', 'ssize_t', '__s64', 's64'):
        return 'l'
    if t in ('unsigned int', 'unsigned', 'u32', '__u32', 'umode_t', 'uid_t',
             'gid_t', 'qid_t', 'old_uid_t', 'old_gid_t', 'u16'):
        return 'u'
    return 'i'


FMT = {'s': '%s', 'p': '%p', 'ul': '%u', 'u': '%u', 'l': '%d', 'i': '%d'}


def main():
    out = os.path.join(HERE, 'syscalls.tbl')
    if os.path.exists(out) and '-f' not in sys.argv:
        sys.exit('syscalls.tbl exists (hand-edited); use -f to overwrite')
    fmts = read_formats()
    rows, odd = [], []
    for line in open(os.path.join(HERE, 'upstream-vars.txt')):
        words = line.split()
        name = words[0].split('.', 1)[1]
        vars_ = [w.split(':')[0] for w in words[1:]
                 if ':' in w and not w.startswith('$')]
        vars_ = [v for v in vars_ if not v.startswith('__')
                 and v not in ('name', 'argstr')]
        base = [v for v in vars_ if not v.endswith(('_str', '_unquoted'))]
        syms = ALIASES.get(name, [name])
        args = fmts.get(syms[0])
        if args is None or len(args) != len(base):
            odd.append(name)
            args = args or []
            base = base if args == [] else [a[1] for a in args]
        assigns, shown = [], []
        for (ctype, _), v in zip(args, base) if args else []:
            k = 'i' if v in ('fd', 'sockfd', 'dfd') else kind(ctype)
            n = len(assigns) + 1
            assigns.append((v, '_sc_%s(%d)' % (k, n), k))
        body = []
        for v, e, k in assigns:
            body.append('%s=%s' % (v, e))
            if k == 's' and v + '_unquoted' in vars_:
                body.append('%s_unquoted=_sc_sr(%s)' % (v, e[-2]))
            if v + '_str' in vars_:
                body.append('%s_str=sprint(%s)' % (v, v))
                shown.append(('%s', v + '_str'))
            else:
                shown.append((FMT[k], v))
        if shown:
            argstr = 'sprintf("%s", %s)' % (', '.join(f for f, _ in shown),
                                          ', '.join(v for _, v in shown))
        else:
            argstr = '""'
        rows.append('\t'.join([name, ','.join(syms), '; '.join(body) or '-',
                               argstr, '1']))
    with open(out, 'w') as f:
        f.write('# name\tkernel symbols (__x64_sys_)\tvariables\targstr\t'
                'retstr format (1 decimal, 2 hex)\n')
        f.write('\n'.join(rows) + '\n')
    print('odd (check by hand):', ' '.join(odd))


main()
