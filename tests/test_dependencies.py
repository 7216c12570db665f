"""guardcheck/dependencies.py: the installed libraries' internals, checked at start-up."""

from __future__ import annotations

import importlib.metadata

import pytest

from guardcheck.dependencies import Internal, check_installed, in_tested_range, missing_internals
from guardcheck.errors import GuardcheckError
from guardcheck.exitcodes import ExitCode


def test_this_environment_has_every_internal_guardcheck_uses():
    """CI runs this in both venvs: the ranges' highest ends and their lowest."""
    assert missing_internals() == []


def test_a_missing_attribute_or_module_is_named_with_what_to_install():
    present = Internal("json", "JSONDecoder.decode", "json")
    absent = Internal("json", "JSONDecoder.no_such_method", "somelib>=2,<3")
    gone = Internal("no_such_module_xyz", "thing", "otherlib>=1")
    with pytest.raises(GuardcheckError) as info:
        check_installed((present, absent, gone))
    assert info.value.code is ExitCode.USAGE
    assert str(info.value) == (
        "an installed library lacks what guardcheck uses:\n"
        "  json.JSONDecoder.no_such_method is missing\n"
        "  no_such_module_xyz.thing is missing\n"
        "  fix: pip install 'otherlib>=1' 'somelib>=2,<3'"
    )


def test_nothing_missing_is_silent():
    assert check_installed((Internal("json", "dumps", "json"),)) is None


def test_a_library_inside_its_tested_range_is_trusted_without_importing_it():
    """CI tests both ends of each range, so start-up imports only libraries outside
    theirs (pytest and coverage cost a third of a second on every command)."""
    major = int(importlib.metadata.version("pytest").split(".")[0])
    inside = f"pytest>={major},<{major + 1}"
    outside = f"pytest<{major}"
    assert in_tested_range(inside)
    assert not in_tested_range(outside)
    assert not in_tested_range("no-such-distribution-xyz>=1")
    check_installed((Internal("no_such_module_xyz", "thing", inside),))  # not looked up
    with pytest.raises(GuardcheckError) as info:
        check_installed((Internal("no_such_module_xyz", "thing", outside),))
    assert "no_such_module_xyz.thing is missing" in str(info.value)
