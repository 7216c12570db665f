"""One pytest-randomly seed for every pytest session of one invocation.

pytest-randomly shuffles the tests and reseeds `random` before each one from a seed
it draws per session unless `--randomly-seed` is given. guardcheck runs many
sessions (the host, fresh runs, checkpoints), so each would draw its own: a fresh
mutant's tests would see other random values than in the baseline, and no hand run
could reproduce the order the verdict came from. The lab hands every session the
same seed (lab/execute/processes.py, `one_randomly_seed`); this plugin, loaded with
`-p` only where pytest-randomly is installed, gives it to pytest-randomly before its
own `pytest_configure` reads the option. A seed the user gave (`--randomly-seed=N`)
stands; `-p no:randomly` leaves the option undefined and this plugin idle.
"""

from __future__ import annotations

import os

import pytest

from guardcheck import messages


def seed_in_force(config: pytest.Config) -> str:
    """The seed pytest-randomly uses in this session, or "" when it is not active."""
    if not hasattr(config.option, "randomly_seed"):
        return ""
    return str(config.option.randomly_seed)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    # Before any pytest_configure, pytest-randomly's among them: it turns "default"
    # into a seed of its own draw, and "last" into the one in a cache we never keep.
    # Taken out of the environment: the tests, and what they start, see the user's.
    seed = os.environ.pop(messages.RANDOMLY_SEED_ENV, "")
    if seed and getattr(config.option, "randomly_seed", None) in ("default", "last"):
        config.option.randomly_seed = int(seed)
