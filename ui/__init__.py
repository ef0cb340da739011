"""The Streamlit UI of Delta Inspector: the pages in ``ui/pages/``, the frame around them here.

``ui/`` itself holds what every page shares: the sidebar (``navigation``), routing and the
page registry, the page context, opening tables (``tables``), state kept between runs, and
formatting and error rendering (``common``). Pages only render what the backend
(``inspector``) returns; ``app.py`` wires them together and is the one place that catches
errors around a page.
"""
