"""Presentation: one JSON shape per record, text and Markdown renderers.

May import every backend layer's records; imports no pyspark itself.
"""
