"""The Home page: page.py and its own sections."""
