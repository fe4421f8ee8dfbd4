"""The Vision Transformer page: page.py, the image it reads, its sections and their cached numbers."""
