"""The seat application (see app.py): link, mirror, screens, input."""
