"""What commands report about inputs rather than convert: schema validation
and the progress bar (``inspect``'s session summary is in the core,
:mod:`sessionport.summary`, because importers' censuses build it)."""
