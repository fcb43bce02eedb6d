# The manual: every "[man PAGE]" hint the tools print names a page we
# ship, every public tapset function and probe alias has its generated
# function::/probe:: page, and every page renders without a warning.
import re
import subprocess
from pathlib import Path

import pytest

from conftest import BUILD, REPO, STAP

SOURCES = ('translator', 'runtime', 'staprun', 'stapio')
HINT = re.compile(r'\[man ([A-Za-z0-9_:.%-]+)\]')


def hints():
    """Every page a [man X] hint in the sources names (%d: passes 1-5)."""
    found = set()
    for top in SOURCES:
        for path in (REPO / top).rglob('*.[ch]'):
            for page in HINT.findall(path.read_text(errors='replace')):
                if '%d' in page:
                    found.update(page.replace('%d', str(n)) for n in range(1, 6))
                else:
                    found.add(page)
    return sorted(found)


def shipped_pages():
    pages = {}
    for path in list((REPO / 'man').glob('*.[0-9]*')) + \
            list((REPO / 'man' / 'diag').glob('*.[0-9]*')) + \
            list((BUILD / 'man' / 'tapset').glob('*.3stap')):
        pages[path.name.rsplit('.', 1)[0]] = path
    return pages


def generated(kind):
    index = BUILD / 'man' / 'tapset' / 'index'
    return {name for k, name in
            (line.split() for line in index.read_text().splitlines()) if k == kind}


def test_hints_have_pages(tools):
    pages = shipped_pages()
    found = hints()
    # the hints the tools are known to print are all seen by the scan
    assert {'error::pass1', 'error::pass5', 'error::fault',
            'warning::pass5', 'error::dwarf'} <= set(found)
    assert [p for p in found if p not in pages] == []


def test_every_public_function_has_a_page(tools):
    out = subprocess.run([str(STAP), '--dump-functions'], capture_output=True,
                         text=True, check=True).stdout
    public = {re.split(r'[:( ]', line)[0] for line in out.splitlines()
              if not line.startswith('_')}
    assert len(public) > 300
    assert sorted(public - generated('function')) == []


def test_every_probe_alias_has_a_page(tools):
    out = subprocess.run([str(STAP), '--dump-probe-aliases'], capture_output=True,
                         text=True, check=True).stdout
    names = {line.split()[0] for line in out.splitlines()}
    # syscall.* and nd_syscall.* are documented by stapprobes.syscall(3stap)
    syscalls = {n for n in names if re.match(r'(nd_)?syscall\.', n)}
    text = (REPO / 'man' / 'stapprobes.syscall.3stap').read_text()
    assert 'nd_syscall' in text
    assert sorted(names - syscalls - generated('probe')) == []


def test_generated_page_content(tools):
    page = (BUILD / 'man' / 'tapset' / 'function::ansi_set_color.3stap').read_text()
    # overloads share one page, each with its synopsis
    assert page.count('.BI "ansi_set_color (fg:long') == 3
    assert '.SH NAME\nfunction::ansi_set_color \\- ' in page
    probe = (BUILD / 'man' / 'tapset' / 'probe::scheduler.cpu_on.3stap').read_text()
    assert '.SH VALUES' in probe and '.B task_prev,' in probe


@pytest.mark.parametrize('group', ['man', 'diag', 'tapset'])
def test_pages_render_without_warnings(tools, group):
    pages = sorted(p for p in shipped_pages().values()
                   if p.parent.name == group)
    assert pages
    bad = {}
    for page in pages:
        r = subprocess.run(['groff', '-man', '-ww', '-z', str(page)],
                           capture_output=True, text=True)
        if r.returncode or r.stderr:
            bad[page.name] = r.stderr
    assert bad == {}


def test_stapfuncs_lists_every_function(tools):
    out = subprocess.run([str(STAP), '--dump-functions'], capture_output=True,
                         text=True, check=True).stdout
    public = {re.split(r'[:( ]', line)[0] for line in out.splitlines()
              if not line.startswith('_')}
    text = (REPO / 'man' / 'stapfuncs.3stap').read_text()
    listed = set(re.findall(r'\\fB([A-Za-z_0-9]+)\\fR', text))
    assert sorted(public - listed) == []


def stapex_scripts():
    text = (REPO / 'man' / 'stapex.3stap').read_text()
    blocks = re.findall(r'^\.nf\n(.*?)^\.fi\n', text, re.M | re.S)
    return [b.replace('\\-', '-').replace('\\e', '\\') for b in blocks]


def test_stapex_examples_elaborate(tools, krel):
    scripts = stapex_scripts()
    assert len(scripts) >= 6
    for script in scripts:
        if script.startswith("stap -e '"):
            script = script[len("stap -e '"):script.rindex("'")]
        r = subprocess.run([str(STAP), '-p2', '-r', krel, '-e', script],
                           capture_output=True, text=True)
        assert (r.returncode, r.stderr) == (0, ''), script
