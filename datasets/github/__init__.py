"""A GitHub repository synced into a project folder: issues, docs, code, releases, pull requests."""
