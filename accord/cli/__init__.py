"""The ``accord`` command line: :mod:`accord.cli.main` is the entry point, :mod:`accord.cli.commands` holds one module
per sub-command."""
