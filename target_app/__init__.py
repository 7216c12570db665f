"""Reference chat gateway: session-hygiene compaction with an escalating failure cooldown."""
