"""The Generate page: page.py and its own sections."""
