"""Developer tools that are no part of the product (see each sub-package's docstring)."""
