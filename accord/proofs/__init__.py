"""Symbolic (sympy) proofs of the consensus core's properties and checks of user derivations."""
