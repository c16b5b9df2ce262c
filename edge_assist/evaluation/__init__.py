"""Evaluation: the EgoServe-protocol scorer, dataset adapters, baselines, reports and plots.

This package drives the app from outside (through `edge_assist.runtime.assembly.run_replay`); nothing in
the product imports it.
"""
