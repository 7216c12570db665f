"""The host fills freezegun's module cache, so each forked child need not (speed only).

The cache is freezegun's internals (`freezegun.api._GLOBAL_MODULES_CACHE`); these tests
fail when its shape changes, which would silently make the warm-up a no-op.
"""

from __future__ import annotations

import datetime
import sys
import types

import freezegun.api
import pytest

from guardcheck.child.librarycaches import warm_freezegun


@pytest.fixture
def module_named(monkeypatch):
    def make(name: str, **attributes: object) -> types.ModuleType:
        module = types.ModuleType(name)
        vars(module).update(attributes)
        monkeypatch.setitem(sys.modules, name, module)
        return module

    monkeypatch.setattr(freezegun.api, "_GLOBAL_MODULES_CACHE", {})
    return make


def test_a_module_holding_the_real_datetime_is_cached_as_freeze_time_would_find_it(module_named):
    module_named("clock_user", now_type=datetime.datetime, answer=42)
    warm_freezegun()
    cached = freezegun.api._GLOBAL_MODULES_CACHE["clock_user"]
    assert cached[1] == [("now_type", datetime.datetime)]
    # and freeze_time takes the entry as it is: the module has not changed since
    assert freezegun.api._get_cached_module_attributes(sys.modules["clock_user"]) is cached[1]


def test_freeze_time_still_patches_the_modules_the_host_looked_at(module_named):
    """The warm cache must not stop freeze_time from replacing a module's datetime."""
    module = module_named("clock_user", now_type=datetime.datetime)
    warm_freezegun()
    with freezegun.freeze_time("2001-02-03"):
        assert module.now_type.now().year == 2001
    assert module.now_type is datetime.datetime


def test_a_module_whose_lookups_could_run_code_is_left_for_the_child(module_named):
    looked_up: list[str] = []

    def lazy(name: str) -> object:
        looked_up.append(name)
        raise AttributeError(name)

    module_named("lazy_pkg", __getattr__=lazy, __dir__=lambda: ["heavy"])
    warm_freezegun()
    assert looked_up == []
    assert "lazy_pkg" not in freezegun.api._GLOBAL_MODULES_CACHE
