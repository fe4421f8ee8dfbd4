"""The Masks page: page.py and its own sections."""
