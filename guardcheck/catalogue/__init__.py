"""Catalogue TOML to entries: reading, positions, suggestions, validation, killed_by collection."""
