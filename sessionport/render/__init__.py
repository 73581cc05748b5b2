"""The readable writers, ``markdown`` and ``html``, and everything they share:
the options a user chooses (``options``), session facts gathered while the
stream runs (``session``), text splitting (``text``) and tool-call views
(``tools``).
"""
