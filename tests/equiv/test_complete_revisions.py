"""`@REV` serves the whole project from the revision, never today's code beside it.

Regression guards for issue 23, point 1: before it, only the target's own
top-level package came from the revision, and every other package of the
project came from today's tree. `hooks.apply:apply@HEAD~1` against
`hooks.apply:apply`, where only `pkg/scale.py` changed, compared today's
`scale` with itself and said "no disagreement"; a `--stateful` factory at a
revision built today's view. Each route by which revision code reaches another
package is tested on a real git history made in tmp_path.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.projects import commit, write_files

from guardcheck.commands.main import main
from guardcheck.equiv.check import check
from guardcheck.equiv.request import EquivRequest
from guardcheck.errors import GuardcheckError

pytestmark = pytest.mark.slow  # every test commits to a real git repository

PYPROJECT = (
    '[project]\nname = "app"\nversion = "0"\n\n[tool.guardcheck]\nsource = ["pkg", "hooks"]\n'
)

PACKAGES = {
    "pyproject.toml": PYPROJECT,
    "pkg/__init__.py": "",
    "pkg/scale.py": "def factor() -> int:\n    return 2\n",
    # pkg.api reaches scale by a relative import: a non-target package's own imports.
    "pkg/api.py": "from .scale import factor\n\n\ndef scaled(x: int) -> int:\n"
    "    return x * factor()\n",
    "hooks/__init__.py": "",
    "hooks/apply.py": "from pkg.scale import factor\n\n\ndef apply(x: int) -> int:\n"
    "    return x * factor()\n",
    "hooks/relative.py": "from pkg.api import scaled\n\n\ndef apply(x: int) -> int:\n"
    "    return scaled(x)\n",
    "hooks/dynamic.py": "import importlib\nfrom importlib import import_module\n\n\n"
    "def apply(x: int) -> int:\n"
    "    return x * importlib.import_module('pkg.scale').factor()\n\n\n"
    "def apply_from(x: int) -> int:\n"
    "    return x * import_module('pkg.scale').factor()\n",
    "hooks/dunder.py": "def apply(x: int) -> int:\n"
    "    return x * __import__('pkg.scale', fromlist=['factor']).factor()\n",
}


def run(root: Path, old: str, new: str, **options):
    return check(EquivRequest(root=root, old=old, new=new, sources=("pkg", "hooks"), **options))


@pytest.fixture
def scaled(tmp_path: Path) -> Path:
    """Revision 1 scales by 2; the working tree (committed as revision 2) by 3: only
    pkg/scale.py changed, never the module compared."""
    root = commit(write_files(tmp_path / "app", PACKAGES), "revision 1")
    write_files(root, {"pkg/scale.py": "def factor() -> int:\n    return 3\n"})
    return commit(root, "revision 2: scale by 3")


@pytest.mark.parametrize(
    "target",
    [
        pytest.param("hooks.apply:apply", id="absolute-import"),
        pytest.param("hooks.relative:apply", id="relative-import-in-another-package"),
        pytest.param("hooks.dynamic:apply", id="importlib.import_module"),
        pytest.param("hooks.dynamic:apply_from", id="from-importlib-import-import_module"),
        pytest.param("hooks.dunder:apply", id="__import__"),
    ],
)
def test_a_change_in_another_package_is_seen_at_the_revision(scaled, target):
    """Regression: each route used to reach today's pkg.scale and agree with itself."""
    result = run(scaled, f"{target}@HEAD~1", target, examples=200)
    assert not result.equal
    [found] = result.functions.result.disagreements
    x = found.kwargs["x"]
    assert (found.old.value, found.new.value) == (2 * x, 3 * x)


def test_two_revisions_of_the_same_project_stay_apart(scaled):
    """Both sides at revisions: each gets its own pkg.scale, and today's is never imported."""
    result = run(scaled, "hooks.apply:apply@HEAD~1", "hooks.apply:apply@HEAD", examples=200)
    assert not result.equal
    assert "pkg.scale" not in sys.modules


def test_an_unchanged_project_agrees_at_the_revision(scaled):
    """No false alarm: the revision's code is the same as today's where nothing changed."""
    result = run(scaled, "hooks.apply:apply@HEAD", "hooks.apply:apply", examples=500)
    assert result.equal


def _untracked_generated_module(tmp_path: Path, apply_head: str) -> Path:
    """hooks.apply imports pkg.generated, which git ignores (a generated module) and which
    exists only in the working tree; `apply_head` is the code before `return x * factor()`."""
    files = {
        **PACKAGES,
        ".gitignore": "pkg/generated.py\n",
        "hooks/apply.py": f"{apply_head}    return x * factor()\n",
    }
    root = commit(write_files(tmp_path / "app", files), "revision 1")
    return write_files(root, {"pkg/generated.py": "def factor() -> int:\n    return 5\n"})


def test_a_project_module_git_lacks_at_the_revision_is_a_usage_error(tmp_path):
    """Regression: an untracked (generated) module imported by the revision's code was served
    from today's tree; now it is named, with a fix: line, and nothing is compared."""
    root = _untracked_generated_module(
        tmp_path, "from pkg.generated import factor\n\n\ndef apply(x: int) -> int:\n"
    )
    with pytest.raises(GuardcheckError) as caught:
        run(root, "hooks.apply:apply@HEAD", "hooks.apply:apply")
    message = str(caught.value)
    assert int(caught.value.code) == 2
    assert message.startswith("OLD hooks.apply:apply@HEAD: the code at HEAD")
    assert "imports pkg.generated" in message
    assert "\n  fix: commit pkg/generated.py" in message


def test_the_same_import_at_call_time_is_a_usage_error_not_an_outcome(tmp_path):
    """An import inside the function runs while inputs are compared: it must stop the
    comparison as a usage error, not count as the function raising."""
    root = _untracked_generated_module(
        tmp_path, "def apply(x: int) -> int:\n    from pkg.generated import factor\n\n"
    )
    done = CliRunner().invoke(
        main, ["--root", str(root), "equiv", "hooks.apply:apply@HEAD", "hooks.apply:apply"]
    )
    assert done.exit_code == 2, done.output
    assert "imports pkg.generated" in done.output
    assert "fix: commit pkg/generated.py" in done.output
    assert "Traceback" not in done.output


def test_a_module_missing_everywhere_raises_as_it_did_at_the_revision(tmp_path):
    """An optional import that fails at the revision and today is the code's own business."""
    files = {
        **PACKAGES,
        "hooks/apply.py": "try:\n    from pkg.optional import factor\nexcept ImportError:\n"
        "    def factor() -> int:\n        return 7\n\n\ndef apply(x: int) -> int:\n"
        "    return x * factor()\n",
    }
    root = commit(write_files(tmp_path / "app", files), "revision 1")
    result = run(root, "hooks.apply:apply@HEAD", "hooks.apply:apply", examples=200)
    assert result.equal


VIEW = '''from collections import UserDict
from typing import Any


class View(UserDict):
    """A dict-faithful view over `self.data`."""

    def __iter__(self):
        return iter(self.data)

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def popitem(self) -> tuple[str, Any]:
        return self.data.popitem()
'''

# Each breaks the view in pkg_b; the factory in pkg_a is the same at both revisions.
BROKEN_VIEWS = {
    "get-default": ("return self.data.get(key, default)", "return self.data.get(key, '')"),
    "sorted-iteration": ("return iter(self.data)", "return iter(sorted(self.data))"),
    "popitem-fifo": ("return self.data.popitem()", "return super().popitem()"),
}


@pytest.mark.parametrize("breakage", sorted(BROKEN_VIEWS))
def test_stateful_factory_in_one_package_builds_the_revisions_view_of_another(tmp_path, breakage):
    """Regression: `pkg_a.factory:make@HEAD~1` built today's pkg_b view, so a broken view
    compared with itself; the issue's two broken views and its popitem difference."""
    files = {
        "pyproject.toml": PYPROJECT.replace('["pkg", "hooks"]', '["pkg_a", "pkg_b"]'),
        "pkg_a/__init__.py": "",
        "pkg_a/factory.py": "from pkg_b.views import View\n\n\ndef make() -> View:\n"
        "    return View()\n",
        "pkg_b/__init__.py": "",
        "pkg_b/views.py": VIEW,
    }
    root = commit(write_files(tmp_path / "app", files), "revision 1")
    faithful, broken = BROKEN_VIEWS[breakage]
    view = root / "pkg_b" / "views.py"
    view.write_text(VIEW.replace(faithful, broken), encoding="utf-8")
    commit(root, f"revision 2: {breakage}")
    factory = "pkg_a.factory:make"
    result = check(
        EquivRequest(root=root, old=f"{factory}@HEAD~1", new=factory, stateful=True, examples=500)
    )
    assert not result.equal, result.text()
    unchanged = check(
        EquivRequest(root=root, old=f"{factory}@HEAD~1", new=f"{factory}@HEAD~1", stateful=True)
    )
    assert unchanged.equal
