"""The Vision Transformer page: page.py, the image it reads and its sections (their cached numbers are
``ui.vision_numbers``)."""
