"""protocol package."""
