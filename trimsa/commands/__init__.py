"""Subcommands of the ``trimsa`` command line (one module each)."""
