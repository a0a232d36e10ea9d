"""Every built-in judge type, one module per family: each holds its types' specs, factories and
registrations together (``@register_judge``), and each factory imports the judge's code inside itself.

The registry imports every module here on its first lookup (:mod:`accord.adapters`), so a new judge
type is one new file in this folder: a spec, a factory and the decorator. Nothing else imports these
modules.
"""
