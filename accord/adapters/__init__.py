"""Judges and generators: each implements a protocol from :mod:`accord.protocols`."""
