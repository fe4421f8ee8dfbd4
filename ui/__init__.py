"""Streamlit-specific shared parts: cached models and forward passes, shared controls.

Every module here that uses torch imports ``ui.runtime`` first, which sets the torch
thread counts; pages that need no torch (Home) never load it.
"""
