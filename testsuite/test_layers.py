# test_layers.py - the translator's layer rule (layers.py), one test per
# rule so a failure names the rule and lists every violation. The object
# rule reads the build's objects (STAP_BUILDDIR, as `make check` sets it).
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import layers  # noqa: E402


def verdict(rule):
    bad = rule()
    assert not bad, f'{len(bad)} violation(s):\n' + '\n'.join(bad)


def test_every_file_is_in_a_layer():
    verdict(layers.check_known)


def test_includes_follow_the_layers():
    verdict(layers.check_includes)


def test_no_include_cycle_among_headers():
    verdict(layers.check_cycles)


def test_object_symbols_follow_the_layers():
    verdict(layers.check_calls)


def test_no_file_over_the_line_limit():
    counts = layers.line_counts(layers.REPO)
    big = max((p for p in counts if p.suffix == '.c'), key=counts.get)
    print(f'largest .c: {layers.show(layers.REPO, big)} ({counts[big]} lines)')
    verdict(layers.check_sizes)


def test_cycles_finds_each_cycle():
    """The cycle finder itself: one shortest cycle per strongly connected
    component, self-includes too, nothing for a chain."""
    graph = {'a.h': {'b.h'}, 'b.h': {'c.h', 'a.h'}, 'c.h': {'a.h'},
             'd.h': {'d.h'}, 'e.h': {'f.h'}}
    assert layers.cycles(graph) == [['a.h', 'b.h'], ['d.h']]
