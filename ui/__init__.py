"""Streamlit-specific shared parts: cached models and forward passes, shared controls."""

from . import runtime  # noqa: F401  (sets torch threads before anything else touches torch)
