"""The `sitecustomize.py` that starts guardcheck inside the processes a test starts.

Written into a folder of the lab's scratch space (never the user's tree),
which the child puts first on `PYTHONPATH`; `site` imports it in every Python
started with that environment. Without `GUARDCHECK_FOLLOW` it does nothing
but hand over to the `sitecustomize` it shadows, if there is one. When
guardcheck cannot start (another interpreter without guardcheck, say), it
records why, so the lab knows that process ran unfollowed.
"""

from __future__ import annotations

from pathlib import Path

from guardcheck.child.followed import PROBLEMS
from guardcheck.messages import FOLLOW_ENV, FOLLOW_TEST_ENV, MARKER

_SITECUSTOMIZE = f'''\
"""guardcheck's bootstrap for the processes a test starts (guardcheck/child/bootstrap.py)."""

import os
import sys

if os.environ.get("{FOLLOW_ENV}"):
    try:
        from guardcheck.child.followed import read_spec

        _spec = read_spec(os.environ["{FOLLOW_ENV}"])
        if _spec["mode"] == "baseline":
            from guardcheck.child.followcov import measure

            measure(_spec)
        else:
            from guardcheck.child.followed import serve_mutant

            serve_mutant(_spec, os.environ.get("{FOLLOW_TEST_ENV}", ""), "{MARKER}")
    except BaseException as exc:
        _folder = os.path.dirname(os.environ["{FOLLOW_ENV}"])
        _test = os.environ.get("{FOLLOW_TEST_ENV}", "")
        _why = f"{{type(exc).__name__}}: {{exc}}"
        _line = f"{{_test}}\ta subprocess could not start guardcheck ({{_why}})"
        _fd = os.open(os.path.join(_folder, "{PROBLEMS}"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(_fd, (_line.replace("\\n", " ") + "\\n").encode())
        os.close(_fd)


def _hand_over():
    """Import the sitecustomize this one shadows, as if this folder were not on the path."""
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        import sitecustomize  # noqa: F401
    except ImportError:
        pass
    finally:
        sys.path[:] = saved
        if ours is not None:
            sys.modules["sitecustomize"] = ours


_hand_over()
'''


def write_bootstrap(folder: Path) -> Path:
    """The folder to put first on PYTHONPATH, with the bootstrap in it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
    return folder
