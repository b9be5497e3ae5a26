"""EurekaClaw: machine-assisted mathematical research from the command line."""

__version__ = "0.1.0"
