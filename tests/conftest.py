"""Shared fixtures for guardcheck's tests (target_app's own live in tests/target_app)."""

from __future__ import annotations
