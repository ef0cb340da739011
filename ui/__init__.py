"""The Streamlit UI of Delta Inspector: one module per page, plus shared helpers.

Pages only render what the backend (``inspector``) returns; ``app.py`` wires them
together and is the one place that catches errors around a page.
"""
