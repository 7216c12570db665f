"""Filters: each names why it skipped a mutant, and the sweep counts skips per name."""

from __future__ import annotations

from collections import Counter

import pytest

from guardcheck.sweep import ARID_RULES, arid_rules_except, generate

MODULE = """\
import logging
from typing import TYPE_CHECKING, cast

logger = logging.getLogger(__name__)


def compute(x, items):
    'A single-quoted docstring mutmut would mutate.'
    logger.info("computing %s", x + 1)
    logging.warning("plain logging %d", x * 2)
    self_log = Recorder()
    self_log.log.debug("through an attribute %s", x - 3)
    assert x > 0, "x must be positive, got %d" % (x + 4)
    value = cast("list[int]", items)
    if TYPE_CHECKING:
        hint = "only for type checkers"
    else:
        hint = "runs"
    return value, hint, x + 5


def not_logging(x, log):
    log.append(x + 6)
    return math.log(x + 7)


class Widget:
    def __repr__(self):
        return "Widget(" + str(self.size + 8) + ")"

    def area(self):
        return self.size * 9
"""


REPR_BODY = '        return "Widget(" + str(self.size + 8) + ")"'


def _lines(sweep) -> Counter[int]:
    return Counter(mutant.span.line for mutant in sweep.mutants)


def _line(code: str) -> int:
    return MODULE.splitlines().index(code) + 1


@pytest.fixture
def root(write_tree):
    return write_tree({"pkg/__init__.py": "", "pkg/mod.py": MODULE, "pkg/legacy/old.py": MODULE})


def test_every_arid_rule_skips_its_code_and_counts_it(root):
    everything = generate(root, ["pkg/mod.py"], arid_rules=())
    arid = generate(root, ["pkg/mod.py"])
    kept = _lines(arid)
    for code in [
        "    'A single-quoted docstring mutmut would mutate.'",  # docstring
        '    logger.info("computing %s", x + 1)',  # logging: logger.<level>
        '    logging.warning("plain logging %d", x * 2)',  # logging: the module
        '    self_log.log.debug("through an attribute %s", x - 3)',  # logging: .log attribute
        '        hint = "only for type checkers"',  # type-annotation: TYPE_CHECKING
        REPR_BODY,  # repr
    ]:
        assert _lines(everything)[_line(code)] > 0, code
        assert kept[_line(code)] == 0, code
    assert set(arid.skipped) == {"pragma"} | {f"arid:{rule.name}" for rule in ARID_RULES}
    assert all(arid.skipped[f"arid:{rule.name}"] > 0 for rule in ARID_RULES)
    assert sum(arid.skipped.values()) + len(arid.mutants) == len(everything.mutants)


def test_arid_rules_leave_the_code_around_them_alone(root):
    kept = _lines(generate(root, ["pkg/mod.py"]))
    assert kept[_line('    assert x > 0, "x must be positive, got %d" % (x + 4)')] == 2  # `>`, `0`
    assert kept[_line('        hint = "runs"')] > 0  # the TYPE_CHECKING `else:` runs
    assert kept[_line("    return value, hint, x + 5")] > 0
    assert kept[_line("    log.append(x + 6)")] > 0  # a list called log is not a logger
    assert kept[_line("    return math.log(x + 7)")] > 0  # nor is math.log
    assert kept[_line("        return self.size * 9")] > 0  # methods other than __repr__


def test_cast_keeps_the_value_and_skips_the_type(root):
    cast_line = _line('    value = cast("list[int]", items)')
    everything = generate(root, ["pkg/mod.py"], arid_rules=())
    sweep = generate(root, ["pkg/mod.py"])
    before = {m.summary for m in everything.mutants if m.span.line == cast_line}
    after = {m.summary for m in sweep.mutants if m.span.line == cast_line}
    type_only = {
        'replace `"list[int]"` with `None`',
        'replace `"list[int]"` with `"XXlist[int]XX"`',
    }
    assert type_only <= before
    # cast() does nothing at run time with its type: changing it changes nothing.
    assert after == before - type_only - {'replace `"list[int]"` with `"LIST[INT]"`'}
    assert "replace `items` with `None`" in after


def test_disabled_arid_rules_keep_their_mutants(root):
    without_logging = generate(root, ["pkg/mod.py"], arid_rules=arid_rules_except(["logging"]))
    assert "arid:logging" not in without_logging.skipped
    assert _lines(without_logging)[_line('    logger.info("computing %s", x + 1)')] > 0
    assert without_logging.skipped["arid:repr"] > 0


def test_an_unknown_arid_rule_name_is_refused():
    with pytest.raises(ValueError, match="unknown arid rule"):
        arid_rules_except(["loging"])


def test_exclude_path_globs_and_qualified_names(root):
    both = generate(root, ["pkg"], arid_rules=())
    paths = Counter(m.changes[0].path for m in both.mutants)
    assert paths["pkg/legacy/old.py"] == paths["pkg/mod.py"] > 0

    by_path = generate(root, ["pkg"], arid_rules=(), exclude=["pkg/legacy/*.py"])
    assert {m.changes[0].path for m in by_path.mutants} == {"pkg/mod.py"}
    assert by_path.skipped["exclude"] == paths["pkg/legacy/old.py"]

    by_name = generate(root, ["pkg/mod.py"], arid_rules=(), exclude=["pkg.mod.Widget.area"])
    area = _line("        return self.size * 9")
    assert _lines(by_name)[area] == 0
    assert _lines(by_name)[_line(REPR_BODY)] > 0

    by_class = generate(root, ["pkg/mod.py"], arid_rules=(), exclude=["pkg.mod.Widget"])
    assert not any(m.span.line >= _line("class Widget:") for m in by_class.mutants)

    by_wildcard = generate(root, ["pkg"], arid_rules=(), exclude=["*.__repr__"])
    repr_line = _line(REPR_BODY)
    assert _lines(by_wildcard)[repr_line] == 0
    assert by_wildcard.skipped["exclude"] == _lines(both)[repr_line]  # in both files

    legacy_module = generate(root, ["pkg"], arid_rules=(), exclude=["pkg.legacy.*"])
    assert {m.changes[0].path for m in legacy_module.mutants} == {"pkg/mod.py"}


def test_since_keeps_only_mutants_on_changed_lines(root):
    area = _line("        return self.size * 9")
    sweep = generate(root, ["pkg"], arid_rules=(), changed_lines={"pkg/mod.py": {area}})
    assert {(m.changes[0].path, m.span.line) for m in sweep.mutants} == {("pkg/mod.py", area)}
    everything = generate(root, ["pkg"], arid_rules=())
    assert sweep.skipped["since"] == len(everything.mutants) - len(sweep.mutants)


def test_each_skip_is_counted_once_by_the_first_filter(root):
    # The __repr__ body is arid and excluded: exclude comes first and takes it.
    sweep = generate(root, ["pkg/mod.py"], exclude=["*.__repr__"])
    reasons = dict(sweep.skips)
    repr_ids = [i for i in reasons if f":{_line(REPR_BODY)}:" in i]
    assert repr_ids
    assert {reasons[i] for i in repr_ids} == {"exclude"}
    assert sweep.skipped["arid:repr"] == 0
    assert Counter(reasons.values()) == Counter({k: v for k, v in sweep.skipped.items() if v})


def test_a_custom_filter_plugs_in_and_is_counted(root):
    class NoNumbers:
        name = "no-numbers"

        def skips(self, candidate):
            return candidate.operator == "operator_number"

    sweep = generate(root, ["pkg/mod.py"], filters=[NoNumbers()])
    assert sweep.skipped["no-numbers"] > 0
    assert not any(m.mutator == "number" for m in sweep.mutants)
