"""Fits on a Dask cluster with the data and every per-example vector on the workers.

Needs ``pip install 'marginboost[dask]'``.
"""
