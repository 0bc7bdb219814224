"""The data the tools read: the Orbit demo and its generator, the GitHub sync (github/), the derived indexes."""
