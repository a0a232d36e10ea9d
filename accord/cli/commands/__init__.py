"""Sub-commands of the ``accord`` CLI, one module each (discovered by :mod:`accord.cli.main`)."""
