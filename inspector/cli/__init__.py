"""``python -m inspector``: the entry point and error contract (``main``), the command
registry (``registry``), the one renderer (``render``), shared arguments (``args``) and the
commands by subject: ``log_commands`` (history, files, detail, demo), ``rows_commands``
(show, diff, changes), ``health_commands`` (check, vacuum-plan, replica),
``restore_commands`` (restore, audit), ``answers_commands`` (insights, explain, blame) and
``desktop`` (desktop). Their text is rendered in :mod:`inspector.present.text`.

The top layer of the backend: may import everything in ``inspector``; nothing imports it.
"""
