"""Op definitions. ``registry`` is the single source of truth; the modules here register ops."""
