"""Fault injection: kill -9 in a loop, and the device's everyday failures, each with what held."""
