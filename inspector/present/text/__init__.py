"""What every command prints without ``--json``: the one place a command's text is rendered.

One module per subject (``log``, ``diff``, ``health``, ``answers``, ``restore``: each names
its commands), one ``*_lines`` function per command, from the command's records (or its JSON
record, so the text says what the JSON says). The CLI's result records
(:class:`inspector.cli.render.Result`) only call them.
"""
