"""child/hypothesis_phases.py: a mutant run's property tests stop at their first failing example."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from guardcheck.child.hypothesis_phases import stop_at_first_failure


def settings_of(function: object) -> settings:
    return function._hypothesis_internal_use_settings  # type: ignore[attr-defined]


def test_shrink_and_explain_are_dropped_and_every_other_setting_kept():
    @settings(max_examples=7, suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers())
    def test_property(x):
        assert isinstance(x, int)

    changed = stop_at_first_failure([SimpleNamespace(obj=test_property)])
    assert changed == 1
    now = settings_of(test_property)
    assert Phase.shrink not in now.phases
    assert Phase.explain not in now.phases
    assert Phase.generate in now.phases
    assert now.max_examples == 7
    assert list(now.suppress_health_check) == [HealthCheck.too_slow]


def test_a_property_test_method_is_changed_on_its_function():
    class TestThing:
        @given(st.booleans())
        def test_property(self, flag):
            assert flag in (True, False)

    bound = TestThing().test_property
    assert stop_at_first_failure([SimpleNamespace(obj=bound)]) == 1
    assert Phase.shrink not in settings_of(TestThing.test_property).phases


def test_plain_tests_and_tests_that_never_shrink_are_left_alone():
    def test_plain():
        assert 1 + 1 == 2

    @settings(phases=[Phase.generate])
    @given(st.integers())
    def test_generate_only(x):
        assert isinstance(x, int)

    before = settings_of(test_generate_only)
    items = [SimpleNamespace(obj=test_plain), SimpleNamespace(obj=test_generate_only)]
    assert stop_at_first_failure(items) == 0
    assert settings_of(test_generate_only) is before
    assert not hasattr(test_plain, "_hypothesis_internal_use_settings")


def test_a_failing_property_stops_at_its_first_failing_example():
    """What the shrink skip buys: the failing example is found and replayed, not shrunk."""
    tried: list[int] = []

    @settings(database=None, derandomize=True, max_examples=100)
    @given(st.integers(min_value=0, max_value=10**9))
    def test_property(x):
        if x > 1000:
            tried.append(x)
        assert x <= 1000

    stop_at_first_failure([SimpleNamespace(obj=test_property)])
    failed = False
    try:
        test_property()
    except AssertionError:
        failed = True
    assert failed
    assert len(tried) <= 2
    assert len(set(tried)) == 1
