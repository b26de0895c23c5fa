"""A plug-in module that fails while it is imported."""

raise RuntimeError("this module is broken")
