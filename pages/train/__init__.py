"""The training page: page.py and its own sections."""
