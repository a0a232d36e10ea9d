"""Errors a user can fix: the CLI prints them as one line and exits with code 2."""


class UserError(Exception):
    """Bad input named precisely (file, line, problem); not a bug in accord."""
