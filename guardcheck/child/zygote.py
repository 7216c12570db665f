"""`python -m guardcheck.child.zygote`: a warm interpreter that forks fresh pytest runs.

A fresh-interpreter mutant used to start two interpreters (the reaper, then
`python -m pytest`), import pytest and its built-in plugins, and only then
collect. The zygote pays for that once per lab session: it imports pytest,
pytest's built-in plugins and guardcheck's child modules, then waits on its
control socket. For each `ForkRun` it forks a supervisor (its own session, a
child subreaper: `reaper.supervise`), which forks the run itself, which does
what `python -m pytest ARGS` does from there: working directory, environment,
`sys.argv`, `sys.path[0]`, `__main__`, `pytest.main()`, then the
interpreter's own shutdown (non-daemon threads joined, atexit handlers run).

What stays fresh, and why it is the same run: the zygote imports nothing of the
project (no conftest, test or source module) and no module pytest would
assert-rewrite (no plugin from an entry point), so everything a run imports
that depends on the mutant is imported in the run, through its import hook,
exactly as in a new interpreter. What it shares with its siblings is only
what a new interpreter would have built identically: the standard library and
pytest's own modules. Flags read from the environment at interpreter start
(PYTHONPATH, PYTHONHASHSEED, PYTHONDONTWRITEBYTECODE, ...) come from the
zygote's environment, which the lab sets as it would for a fresh run; a run's
own variables are set before pytest starts.

Each supervisor writes its run's exit status ("exit N" or "signal N") to the
file the request names, then ends the way the run did. The zygote answers a
request with `Forked(pid)` and the supervisor's pidfd (SCM_RIGHTS), which
becomes readable when the supervisor ends. The zygote ends when its socket
closes, and with the lab (PR_SET_PDEATHSIG); its supervisors end with it.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import io
import os
import select
import signal
import socket
import sys
import tokenize
import traceback
import types

import pytest
from _pytest.config import default_plugins

from guardcheck import messages
from guardcheck.child import (
    bootstrap,
    bytecode,
    follow,
    hypothesis_phases,
    importhook,
    itemrun,
)
from guardcheck.child.hashseed import restore_user_hash_seed
from guardcheck.child.procs import (
    limit_address_space,
    set_pdeathsig,
    set_subreaper,
)
from guardcheck.child.reaper import supervise

# What a fresh run imports before it reaches the project. freshrun itself is not
# among them: it reads its spec as it is imported.
_WARM = (bootstrap, bytecode, follow, hypothesis_phases, importhook, itemrun)
_REAP_EVERY = 1.0  # seconds: supervisors that ended are reaped this often, at the least


def warm_up() -> None:
    """Import what every fresh run imports before it reaches the project.

    guardcheck's child modules (`_WARM`) came with this module; pytest's built-in
    plugins are imported here.
    """
    for name in default_plugins:
        with contextlib.suppress(ImportError):
            importlib.import_module(f"_pytest.{name}")
    # pytest looks for plugins among the installed distributions: warm importlib's
    # path caches (they are checked against each folder's mtime, so never stale).
    importlib.metadata.entry_points(group="pytest11")
    warm_failure_reports()


def warm_failure_reports() -> None:
    """Build once what pytest's report of each failure builds first: tokenize's regular
    expressions and inspect's map from files to the modules imported so far (it extends
    the map as modules come). Each run forked from here inherits them."""
    for _token in tokenize.generate_tokens(io.StringIO("x = 1\n").readline):
        pass
    inspect.getmodule(None, __file__)


def serve(control: socket.socket) -> messages.ForkRun | None:
    """Answer ForkRun requests until the lab closes the socket (None).

    Returns in each run forked, with its request: the caller makes the run of it.
    """
    buffer = messages.LineBuffer()
    while True:
        ready, _, _ = select.select([control], [], [], _REAP_EVERY)
        reap_ended()
        if not ready:
            continue
        data = control.recv(1 << 16)
        if not data:
            return None
        for request in buffer.feed(data):
            if isinstance(request, messages.ForkRun) and fork_run(control, request):
                return request


def fork_run(control: socket.socket, request: messages.ForkRun) -> bool:
    """Fork a supervisor and, under it, the run; answer `control` with its pid and pidfd.

    Returns True in the run (whose caller makes it what the request asks for), False
    here. A checkpoint (child/checkpoint.py) answers its requests the same way.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    ready, started = os.pipe()
    try:
        pid = os.fork()
    except OSError as exc:
        os.close(ready)
        os.close(started)
        control.sendall(messages.encode(messages.Forked(0, f"fork failed: {exc}")))
        return False
    if pid == 0:  # the supervisor, then (returning) the run
        control.close()
        os.close(ready)
        _supervisor(request, started)
        return True
    os.close(started)
    os.read(ready, 1)  # its own session first: the lab may kill that group at once
    os.close(ready)
    pidfd = os.pidfd_open(pid)  # before any reaping: it names this process for good
    try:
        socket.send_fds(control, [messages.encode(messages.Forked(pid))], [pidfd])
    finally:
        os.close(pidfd)
    return False


def reap_ended() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _supervisor(request: messages.ForkRun, started: int) -> None:
    """Supervises one pytest run, as child/reaper.py does for a command; returns only in
    the run it forks."""
    try:
        os.setsid()  # the lab kills the run's whole group on a timeout
        os.close(started)  # tells the zygote the group exists
        set_subreaper()
        set_pdeathsig(signal.SIGTERM)
        run = os.fork()
    except BaseException:
        traceback.print_exc()
        os._exit(1)
    if run == 0:
        return
    code = 1
    try:

        def wait() -> int:
            return os.waitstatus_to_exitcode(os.waitpid(run, 0)[1])

        code = supervise(wait, on_end=lambda code: _write_status(request.status, code))
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code if code >= 0 else 1)


def _write_status(path: str, code: int) -> None:
    text = f"signal {-code}" if code < 0 else f"exit {code}"
    with contextlib.suppress(OSError), open(path, "w", encoding="ascii") as out:
        out.write(text)


def enter_run(request: messages.ForkRun) -> None:
    """What a forked run sets up first: its end with its supervisor, its memory limit,
    its log, working directory and environment."""
    set_pdeathsig(signal.SIGKILL)
    limit_address_space(request.memory_limit_mb)
    _redirect(request.log)
    os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    restore_user_hash_seed()  # the zygote started with the lab's seed; the tests see theirs


def _pytest_run(request: messages.ForkRun) -> None:
    """Never returns: `python -m pytest ARGS` from the point where pytest is imported."""
    code = 1
    try:
        enter_run(request)
        sys.path[0] = request.cwd  # `python -m` puts the working directory first
        main = _pytest_main_module()
        sys.argv = [main.__file__ or "pytest", *request.args]
        sys.modules["__main__"] = main
        try:
            code = int(pytest.main())  # reads sys.argv, as `python -m pytest` does
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        _shut_down()
    except BaseException:
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _shut_down() -> None:
    """What the interpreter does as it exits: join non-daemon threads, run atexit."""
    import atexit
    import threading

    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()


def _redirect(log: str) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


def _pytest_main_module() -> types.ModuleType:
    """A `__main__` like `python -m pytest`'s (multiprocessing's spawn reads it)."""
    module = types.ModuleType("__main__")
    module.__spec__ = importlib.util.find_spec("pytest.__main__")
    module.__file__ = module.__spec__.origin if module.__spec__ is not None else None
    module.__builtins__ = __builtins__  # type: ignore[attr-defined]
    return module


def main() -> int:
    set_pdeathsig(signal.SIGTERM)
    fd = int(os.environ.pop(messages.ZYGOTE_ENV))
    control = socket.socket(fileno=fd)
    control.setblocking(True)
    try:  # the lab needs a pidfd per run: without one, fork nothing (it starts them anew)
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError) as exc:
        print(f"guardcheck zygote: no pidfd_open on this system ({exc})", file=sys.stderr)
        return 1
    warm_up()
    request = serve(control)
    if request is not None:
        _pytest_run(request)  # never returns
    return 0


if __name__ == "__main__":
    sys.exit(main())
