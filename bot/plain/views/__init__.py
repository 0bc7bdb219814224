"""Plain text views: pure functions from the message values to text, one module per view."""
