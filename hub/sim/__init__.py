"""Simulation of a table's hardware for the demo and the tests: pty serial links and
seat boards running the real firmware under the MicroPython unix port.
"""
