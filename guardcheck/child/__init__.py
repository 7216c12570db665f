"""Code that runs inside the user's pytest: host plugin, fork server, fresh-run plugin, code swap.

Imports only `guardcheck.model`, `guardcheck.messages` and other `child` modules:
it shares the user's interpreter, so the less it drags in, the less it disturbs."""
