"""privcheck: privacy-model compliance checker and anonymizer."""

__version__ = "0.1.0"
