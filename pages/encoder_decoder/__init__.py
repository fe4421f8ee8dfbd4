"""The Encoder-decoder page: page.py and its own sections."""
