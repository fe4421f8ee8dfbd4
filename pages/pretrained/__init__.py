"""The pretrained-model page: page.py and its own sections."""
