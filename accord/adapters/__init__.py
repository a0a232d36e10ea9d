"""Judges and generators: each implements a protocol from :mod:`accord.verify.protocols`."""
