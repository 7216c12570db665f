"""guardcheck/dependencies.py: the installed libraries' internals, checked at start-up."""

from __future__ import annotations

import pytest

from guardcheck.dependencies import Internal, check_installed, missing_internals
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
