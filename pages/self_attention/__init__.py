"""The Self-attention, step by step page: page.py and its own sections."""
