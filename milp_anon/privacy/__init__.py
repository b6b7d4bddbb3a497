"""Privacy criteria, the distances they use, and the independent verifier written from the definitions."""
