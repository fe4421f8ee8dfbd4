"""The Multi-head attention page: page.py and its own sections."""
