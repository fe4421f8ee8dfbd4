"""This page's address on a fresh server's first request; the page itself is in the folder of the same name.

See ui/routing.py: until app.py's navigation has run once, Streamlit resolves a link by the
files in pages/, so each page keeps this file, which hands the request to app.py.
"""

from ui.routing import require_navigation

require_navigation()
