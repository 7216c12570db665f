"""Defaults are compared by leaving arguments out (issue 23, point 2).

Regression guards: every argument used to be passed, so a default changed from
'-' to '_' passed 200,000 inputs, and the signature line showed `=...`.
"""

from __future__ import annotations

import json

from guardcheck.equiv.check import check
from guardcheck.equiv.request import EquivRequest

M = "gatekit.defaults"


def run(root, old, new, **options):
    return check(EquivRequest(root=root, old=f"{M}:{old}", new=f"{M}:{new}", **options))


def test_a_default_changed_from_dash_to_underscore_is_found(gates):
    """The issue's case: only the default differs, so only a call without `sep` shows it."""
    result = run(gates, "slug", "slug_underscore", examples=5_000)
    assert not result.equal
    [found] = result.functions.result.disagreements
    assert found.omitted == ("sep",)
    assert "sep" not in found.kwargs
    words = found.kwargs["text"].split()
    assert (found.old.value, found.new.value) == ("-".join(words), "_".join(words))
    text = result.text()
    assert "signature (text: str, sep: str = '-')" in text
    assert "NEW signature (text: str, sep: str = '_')" in text
    assert f"called without `sep`: slug(text={found.kwargs['text']!r})" in text
    assert f"OLD returned {found.old.value!r}" in text


def test_an_unchanged_default_is_not_a_false_alarm(gates):
    """Leaving `sep` out is tried (the defaults tier), and both sides agree."""
    result = run(gates, "slug", "slug_rewritten", examples=5_000)
    assert result.equal
    counts = result.functions.result.counts
    # Eight inputs, each with `sep` left out and passed.
    assert counts["defaults"] == 16
    assert "defaults 16" in result.text()
    assert "NEW signature" not in result.text()


def test_a_changed_keyword_only_default_is_found(gates):
    result = run(gates, "clamp", "clamp_wider", examples=5_000)
    assert not result.equal
    [found] = result.functions.result.disagreements
    assert found.omitted == ("high",)
    assert found.kwargs["value"] > 100
    assert "signature (value: int, *, low: int = 0, high: int = 100)" in result.text()


def test_a_default_new_no_longer_has_is_a_call_new_refuses(gates):
    result = run(gates, "clamp", "clamp_required", examples=2_000)
    assert not result.equal
    [found] = result.functions.result.disagreements
    assert "high" in found.omitted
    assert not found.old.raised
    assert found.new.key == "TypeError"


def test_an_unannotated_default_takes_its_type_from_the_default(gates):
    result = run(gates, "untyped_slug", "untyped_slug_dot", examples=5_000)
    assert not result.equal
    assert result.functions.result.disagreements[0].omitted == ("sep",)


def test_a_changed_positional_only_default_is_found(gates):
    """`fill` left out while `width` is passed; `width` left out before a passed `fill`
    gets each side's own default, which is what leaving it out means."""
    result = run(gates, "pad", "pad_zero", examples=5_000)
    assert not result.equal
    [found] = result.functions.result.disagreements
    assert found.omitted[-1] == "fill"
    assert found.old.value.startswith(" ")
    assert found.new.value.startswith("0")
    assert "signature (text: str, width: int = 4, fill: str = ' ', /)" in result.text()


def test_every_subset_of_left_out_arguments_is_in_an_exhaustive_domain(gates):
    """Finite domains include leaving out: 2 bounded ints of 3 values plus omission each."""
    result = run(gates, "clamp", "clamp", bound=1)
    assert result.equal
    assert result.functions.result.complete
    assert result.functions.result.counts["exhaustive"] == 3 * 4 * 4


def test_json_lists_the_left_out_arguments(gates):
    result = run(gates, "slug", "slug_underscore", examples=5_000)
    report = json.loads(result.json_text())
    [found] = report["disagreements"]
    assert found["omitted"] == ["sep"]
    assert "sep" not in found["input"]
    assert report["signature"] == "(text: str, sep: str = '-')"
    assert report["new_signature"] == "(text: str, sep: str = '_')"
