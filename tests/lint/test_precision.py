"""One test per false positive and false negative that issue 23 measured on real suites
(attrs, click, toolz): each docstring names the case it guards."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from guardcheck.lint import lint_paths

Found = set[tuple[int, str]]


def lint(tmp_path: Path, source: str, name: str = "test_case.py") -> Found:
    """(line, rule) of every finding in one test file written from `source`."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return {(f.line, f.rule) for f in lint_paths([path], tmp_path).findings}


# no-assert: what counts as an assertion


@pytest.mark.parametrize(
    "check",
    [
        "raise AssertionError('wrong')",
        "raise AssertionError",
        "pytest.fail('wrong')",
        "raise ValueError('wrong')",
    ],
)
def test_a_conditional_raise_or_fail_is_an_assertion(tmp_path: Path, check: str):
    """False positive: toolz's `if missing: raise AssertionError(...)` tests were
    reported as asserting nothing; a test that raises on a condition checks it."""
    source = f"""
        import pytest

        def test_it():
            if int("3") != 3:
                {check}
    """
    assert lint(tmp_path, source) == set()


@pytest.mark.parametrize(
    "check", ["self.fail('wrong')", "self.failUnless(x)", "self.assertTrue(x)"]
)
def test_unittest_fail_and_assert_methods_are_assertions(tmp_path: Path, check: str):
    """False positive: `self.fail()` in a unittest test counted as no assertion."""
    source = f"""
        import unittest

        class CheckThings(unittest.TestCase):
            def test_it(self):
                x = int("3")
                if x != 3:
                    {check}
    """
    assert lint(tmp_path, source) == set()


def test_a_testcase_subclass_is_collected_whatever_its_name(tmp_path: Path):
    """False negative: pytest collects `unittest.TestCase` subclasses not named Test*;
    their assertion-free tests were never looked at."""
    source = """
        from unittest import TestCase

        class ConsumerChecks(TestCase):
            def test_nothing(self):
                int("3")
    """
    assert lint(tmp_path, source) == {(5, "no-assert")}


def test_a_helper_that_raises_is_an_assertion(tmp_path: Path):
    """False positive: a test whose helper raises on a wrong value (in the file, or
    in a test helper module) was reported as asserting nothing."""
    (tmp_path / "checks.py").write_text(
        "def check_positive(n):\n    if n <= 0:\n        raise ValueError(n)\n"
    )
    source = """
        from checks import check_positive

        def verify(n):
            if n != 3:
                raise RuntimeError(n)

        def test_local_helper():
            verify(int("3"))

        def test_imported_helper():
            check_positive(int("3"))
    """
    assert lint(tmp_path, source) == set()


def test_a_raise_in_a_stub_handed_to_the_code_is_not_an_assertion(tmp_path: Path):
    """False negative guard: attrs' `def always_fails(...): raise ValueError` is a stub
    the test passes to the code under test; its raise checks nothing."""
    source = """
        def test_it():
            def always_fails(value):
                raise ValueError(value)

            run_validator(always_fails, 3)
    """
    assert lint(tmp_path, source) == {(2, "no-assert")}


def test_the_code_under_test_is_not_a_helper(tmp_path: Path):
    """False negative guard: in a flat layout (toolz/ beside toolz/tests/), a library
    function that raises on bad input is the code under test, not a checking helper."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "core.py").write_text(
        "def parse(text):\n    if not text:\n        raise ValueError(text)\n    return text\n"
    )
    source = """
        from lib.core import parse

        def test_parse():
            parse("x")
    """
    assert lint(tmp_path, source, "lib/tests/test_core.py") == {(4, "no-assert")}


# tautology: only values that cannot depend on the code under test


def test_a_user_object_compared_with_itself_is_not_a_tautology(tmp_path: Path):
    """False positive: attrs' `assert b == b` and `assert a <= a`, where `__eq__` and
    the ordering are the behaviour under test and pytest fails them when wrong."""
    source = """
        from app import Money, NOTHING

        def test_eq(make):
            b = Money(3)
            a = make()
            assert b == b
            assert a <= a >= a
            assert NOTHING == NOTHING == NOTHING
    """
    assert lint(tmp_path, source) == set()


def test_literals_same_name_is_and_builtin_scalars_are_tautologies(tmp_path: Path):
    """The three shapes that cannot depend on the code under test stay reported."""
    source = """
        def test_it(result):
            n = 3
            assert 1 == 1
            assert result is result
            assert n == n
            assert result == 3
    """
    assert lint(tmp_path, source) == {(4, "tautology"), (5, "tautology"), (6, "tautology")}


def test_nan_is_not_equal_to_itself(tmp_path: Path):
    """False positive guard: `x == x` fails for NaN, so a float that may be NaN is
    not a scalar whose self-comparison always holds."""
    source = """
        def test_it():
            nan = float("nan")
            assert not (nan == nan)
            assert nan != nan
    """
    assert lint(tmp_path, source) == set()


# source-reading


def test_linecache_of_a_module_file_is_source_reading(tmp_path: Path):
    """False negative: `linecache.getlines(mod.__file__)` reads source like open() does."""
    source = """
        import linecache

        import app

        def test_it():
            lines = linecache.getlines(app.__file__)
            assert "def f" in lines[0]
            assert linecache.getline(__file__, 3)
    """
    assert lint(tmp_path, source) == {(7, "source-reading"), (9, "source-reading")}


def test_reading_a_module_file_with_open_or_read_text_is_source_reading(tmp_path: Path):
    """False negative guard: open()/Path.read_text() of a module's __file__ (also
    through __spec__.origin or tokenize.open) stays reported."""
    source = """
        import tokenize
        from pathlib import Path

        import app

        def test_it():
            assert "f" in open(app.__file__).read()
            assert Path(app.__file__).read_text()
            assert tokenize.open(app.__spec__.origin).read()
    """
    found = lint(tmp_path, source)
    assert found == {(8, "source-reading"), (9, "source-reading"), (10, "source-reading")}


def test_getsource_of_code_generated_at_run_time_is_not_source_reading(tmp_path: Path):
    """False positive: attrs' `inspect.getsource(C.__init__)` of a class built in the
    test reads code attrs generated at run time, which is the behaviour under test."""
    source = """
        import inspect

        import attr

        @attr.s
        class Module:
            x = attr.ib()

        def test_it():
            @attr.s
            class C:
                x = attr.ib()

            D = attr.make_class("D", ["y"])
            assert "self.x = x" in inspect.getsource(C.__init__)
            assert inspect.getsource(D.__init__) != inspect.getsource(Module.__init__)
            assert inspect.getsource(type(C(1)).__init__)
    """
    assert lint(tmp_path, source) == set()


def test_getsource_of_imported_code_is_still_source_reading(tmp_path: Path):
    """False negative guard: the generated-code exception must not hide getsource of
    the code under test, imported or reached through a name or getattr."""
    source = """
        import inspect

        import app
        from app import run

        def test_it():
            f = app.f
            assert inspect.getsource(run)
            assert inspect.getsource(f)
            assert inspect.getsource(getattr(app, "g"))
    """
    found = lint(tmp_path, source)
    assert found == {(9, "source-reading"), (10, "source-reading"), (11, "source-reading")}


# skip-without-reason


def test_empty_and_missing_skip_reasons(tmp_path: Path):
    """False negatives: `skipif(..., reason="")`, `unittest.skip("")`, bare
    `@unittest.skip`, and the imperative forms without a reason."""
    source = """
        import sys
        import unittest

        import pytest

        @pytest.mark.skipif(sys.platform == "win32", reason="")
        def test_a():
            assert run()

        @pytest.mark.skip("  ")
        def test_b():
            assert run()

        class Cases(unittest.TestCase):
            @unittest.skip("")
            def test_c(self):
                self.assertTrue(run())

            @unittest.skip
            def test_d(self):
                self.assertTrue(run())

            @unittest.skipIf(sys.platform == "win32", "")
            def test_e(self):
                self.skipTest("")
                self.assertTrue(run())

        def test_f():
            pytest.skip()
            assert run()
    """
    assert lint(tmp_path, source) == {
        (7, "skip-without-reason"),
        (11, "skip-without-reason"),
        (16, "skip-without-reason"),
        (20, "skip-without-reason"),
        (24, "skip-without-reason"),
        (26, "skip-without-reason"),
        (30, "skip-without-reason"),
    }


def test_skips_with_reasons_are_fine(tmp_path: Path):
    """False positive guard: a reason given positionally or by keyword is a reason,
    and `pytest.skip.Exception` is not a skip."""
    source = """
        import sys
        import unittest

        import pytest

        @unittest.skipIf(sys.platform == "win32", "POSIX paths")
        @unittest.skip(reason="slow")
        @pytest.mark.xfail(reason="bug 12")
        def test_a():
            with pytest.raises(pytest.skip.Exception):
                pytest.skip("not here")
            pytest.xfail(reason="known")
    """
    assert lint(tmp_path, source) == set()


# swallowed-assert


def test_an_assert_whose_except_swallows_it_is_reported(tmp_path: Path):
    """False negative: `try: assert ... except AssertionError: pass` passes whatever
    the code does."""
    source = """
        import unittest

        def test_a(result):
            try:
                assert result == 3
            except AssertionError:
                pass

        def test_b(result):
            try:
                assert result == 3
            except (ValueError, Exception):
                print("ignored")

        class Cases(unittest.TestCase):
            def test_c(self):
                try:
                    self.assertEqual(int("3"), 3)
                except:
                    pass
    """
    found = lint(tmp_path, source)
    assert found == {(7, "swallowed-assert"), (13, "swallowed-assert"), (20, "swallowed-assert")}


def test_an_except_that_acts_or_an_expected_failure_is_fine(tmp_path: Path):
    """False positive guard: a handler that re-raises, fails or skips, a try whose
    else raises (the assertion is expected to fail), and an except that does not
    catch AssertionError all leave the assertion effective."""
    source = """
        import pytest

        def test_it(result):
            try:
                assert result == 3
            except AssertionError:
                raise RuntimeError("with context")
            try:
                assert result == 3
            except AssertionError:
                pytest.skip("flaky on CI")
            try:
                assert result == 4
            except AssertionError:
                pass
            else:
                raise RuntimeError("assertions are disabled")
            try:
                assert int(result) == 3
            except ValueError:
                pass
    """
    assert lint(tmp_path, source) == set()


# broad-raises


def test_a_broad_raises_whose_exception_is_checked_afterwards_is_fine(tmp_path: Path):
    """False positive: attrs' `with pytest.raises(Exception) as e:` followed by
    `assert (obj,) == e.value.args` pins the error; also `.match()` and a check of a
    value computed from the exception (jinja2's traceback test)."""
    source = """
        import pytest

        def test_args():
            with pytest.raises(Exception) as e:
                run()
            assert e.value.args == (1,)

        def test_match():
            with pytest.raises(Exception) as e:
                run()
            e.match("boom")

        def test_derived():
            with pytest.raises(BaseException) as info:
                run()
            text = format_exception(info.type, info.value)
            found = search("boom", "".join(text))
            assert found is not None
    """
    assert lint(tmp_path, source) == set()


def test_a_broad_raises_kept_but_never_checked_is_reported(tmp_path: Path):
    """False negative guard: binding the exception is not enough; it must be checked."""
    source = """
        import pytest

        def test_it():
            with pytest.raises(Exception) as e:
                run()
            print(e.value)
    """
    assert lint(tmp_path, source) == {(5, "broad-raises")}


def test_a_fixture_named_test_something_is_not_a_test(tmp_path: Path):
    """False positive: jinja2's `@pytest.fixture def test_env_async():` and boltons'
    `test_url` fixture were reported as tests asserting nothing; pytest never
    collects a fixture as a test."""
    source = """
        import pytest

        @pytest.fixture
        def test_env():
            return {"bar": 23}

        class TestGroup:
            @pytest.fixture(scope="module")
            def test_url(self, request):
                return request.param

            def test_uses(self, test_env):
                assert test_env["bar"] == 23
    """
    assert lint(tmp_path, source) == set()


def test_a_failure_recorded_and_raised_later_is_not_swallowed(tmp_path: Path):
    """False positive: pyparsing collects failed assertions (`failed += 1`,
    `failed.append(msg)`) and raises or fails after the loop when any failed."""
    source = """
        import unittest

        def test_counted(pairs):
            failed = 0
            for got, want in pairs:
                try:
                    assert got == want
                except AssertionError:
                    failed += 1
            if failed:
                raise AssertionError(f"{failed} failed")

        class Cases(unittest.TestCase):
            def test_listed(self):
                failed = []
                for word in ("a", "b"):
                    try:
                        self.assertEqual(word.upper(), word.title())
                    except AssertionError:
                        failed.append(word)
                if failed:
                    self.fail(str(failed))

        def test_recorded_but_never_tested(pairs):
            failed = []
            for got, want in pairs:
                try:
                    assert got == want
                except AssertionError:
                    failed.append(got)
            print(failed)
    """
    assert lint(tmp_path, source) == {(30, "swallowed-assert")}


def test_a_string_skip_condition_is_its_own_reason(tmp_path: Path):
    """False positive: pyparsing's `skipif("mpl_mathtext is None")`; pytest shows a
    string condition as the reason ("condition: mpl_mathtext is None")."""
    source = """
        import pytest

        @pytest.mark.skipif("mpl is None")
        @pytest.mark.xfail("sys.version_info < (3, 12)")
        def test_it():
            assert run()
    """
    assert lint(tmp_path, source) == set()


def test_the_line_number_from_getsourcelines_is_not_source_text(tmp_path: Path):
    """False positive: pyparsing sorts its test classes by
    `inspect.getsourcelines(cls)[1]`, a line number, not the code's text."""
    source = """
        import inspect

        import app

        def test_it():
            assert inspect.getsourcelines(app.f)[1] > 0
            lines = inspect.getsourcelines(app.f)[0]
            assert lines
    """
    assert lint(tmp_path, source) == {(8, "source-reading")}


def test_code_loaded_at_run_time_may_assert(tmp_path: Path):
    """False positive: pyparsing's example tests run `import_module("examples." +
    name).main()`, and most examples assert their own results; lint-tests cannot
    read code a test loads at run time, so it does not claim the test checks nothing."""
    source = """
        from importlib import import_module
        import runpy
        import unittest

        class TestExamples(unittest.TestCase):
            def _run(self, name):
                getattr(import_module("examples." + name), "main")()

            def test_numerics(self):
                self._run("numerics")

        def test_script():
            runpy.run_path("scripts/check.py")

        def test_snippet():
            exec("run()")
    """
    assert lint(tmp_path, source) == set()
