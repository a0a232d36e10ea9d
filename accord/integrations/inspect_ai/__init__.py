"""accord as an inspect_ai extension: step verification and answer equivalence as scorers, the
VERDICT consensus as a score reducer (docs/inspect.md).

inspect loads this package through the ``inspect_ai`` entry point the first time a name under
``accord/`` is asked for (``inspect score LOG --scorer accord/verify_steps``); in Python, import
the functions:

- ``accord/verify_steps`` (:func:`verify_steps`): the ``accord verify`` panel over the steps of the
  model's output, the sample's input as the problem; incorrect when a step is invalid;
- ``accord/answer_match`` (:func:`answer_match`): the output's final answer against the target
  by accord's answer equivalence, a drop-in for inspect's ``match``;
- ``accord/verdict`` (:func:`verdict`): a score reducer combining several scorers' (or graders',
  or epochs') values by the Friedkin–Johnsen consensus, with λ per scorer, τ and ε;
- ``accord/panel`` (:func:`panel`): scorers named on the command line reduced by ``accord/verdict``
  (``inspect score`` takes one scorer: this is how a reducer of several is asked for there).
"""

from accord.integrations.inspect_ai._answers import answer_match
from accord.integrations.inspect_ai._steps import verify_steps
from accord.integrations.inspect_ai._verdict import panel, verdict

__all__ = ["answer_match", "panel", "verdict", "verify_steps"]
