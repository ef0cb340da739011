"""The app's pages: one module per page (``KEY.py``, listed in ``ui/registry.py``).

A page's own helpers sit beside it, named after it (``timeline_frame.py``, ``diff_rows.py``,
``preview_answers.py``, ``restore_state.py``; the Health and Audit pages hand the Restore
page a prefilled restore through ``restore_state.py``); helpers more than one page uses
live in ``ui/`` itself.
"""
