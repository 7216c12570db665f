"""One module per check; each takes the `Trees` and returns a `CheckResult`."""
