"""accord inside other tools: extensions those tools load, never imported by accord itself.

- :mod:`accord.integrations.inspect_ai` — scorers and a score reducer for inspect_ai, registered
  through its ``inspect_ai`` entry point (the ``inspect`` extra).
"""
