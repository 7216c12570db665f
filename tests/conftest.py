"""Shared fixtures for guardcheck's tests (target_app's own live in tests/target_app)."""

from __future__ import annotations

# Fixture projects hold tests of their own (run by guardcheck inside copies of them);
# they are data for guardcheck's tests, not part of guardcheck's suite.
collect_ignore = ["fixtures"]
