"""Click commands: parse flags, call `guardcheck.api`, render, map to an exit code."""
