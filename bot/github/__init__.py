"""GitHub inbound: the webhook endpoint of `atlas serve`."""
