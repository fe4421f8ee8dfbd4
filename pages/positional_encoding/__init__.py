"""The Positional encoding page: page.py and its own sections."""
