"""What re-collecting one test file in a fork of the collected session would cost.

Not a guardcheck feature: a measurement for the one not built yet. Mutants of
statements that ran while pytest collected a test file (isodate's
`tests/test_duration.py` calls `parse_duration` in its tables, dep-logic's
`tests/tags/test_tags.py` builds `EnvSpec` objects in a `parametrize` list) run in a
fresh interpreter today, which starts pytest and imports the project again. This
plugin forks the collected session ten times; each child drops the file's module,
imports it again and collects it as a new `pytest.Module`, then runs its first five
tests. It prints the milliseconds of each round (fork, re-import, collection, tests).

Run it in a project's venv, from the project folder (a corpus work folder will do)::

    PYTHONPATH=/path/to/guardcheck/bench RECOLLECT=tests/test_duration.py \\
        python -m pytest -q -p no:cacheprovider -p recollect_probe tests
"""

from __future__ import annotations

import os
import sys
import time

import pytest

ROUNDS = 10
TESTS = 5  # of the re-collected file, run in each child


def _recollect_and_run(session: pytest.Session, module: pytest.Module, out: int) -> None:
    """In the child: the module imported and collected again, its first tests run."""
    del sys.modules[module.obj.__name__]
    fresh = pytest.Module.from_parent(module.parent, path=module.path)
    items = list(session.genitems(fresh))
    for index, item in enumerate(items[:TESTS]):
        following = items[index + 1] if index + 1 < len(items) else None
        item.ihook.pytest_runtest_protocol(item=item, nextitem=following)
    os.write(out, str(len(items)).encode())


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool:
    target = os.environ["RECOLLECT"]
    before = [i for i in session.items if i.nodeid.split("::")[0] == target]
    module = before[0].getparent(pytest.Module)
    assert module is not None
    rounds: list[float] = []
    collected = b""
    for _ in range(ROUNDS):
        started = time.perf_counter()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read)
                _recollect_and_run(session, module, write)
            finally:
                os._exit(0)
        os.close(write)
        collected = os.read(read, 100)
        os.close(read)
        os.waitpid(pid, 0)
        rounds.append(1000 * (time.perf_counter() - started))
    print(
        f"\n{target}: {len(before)} items, {collected.decode() or '?'} re-collected; "
        f"ms per round: {', '.join(f'{ms:.1f}' for ms in sorted(rounds))}"
    )
    return True
