"""What every command prints without ``--json``: the one place a command's text is rendered.

One module per subject, one ``*_lines`` function per command, from the command's records
(or its JSON record, so the text says what the JSON says): ``log`` (``history``, ``files``,
``detail``, ``demo``, ``insights``), ``diff``, ``health`` (``check``, ``vacuum-plan``,
``replica``), ``answers`` (``show``, ``changes``, ``explain``, ``blame``) and ``restore``
(``restore``, ``audit``). The CLI's result records (:class:`inspector.cli.render.Result`)
only call them.
"""
