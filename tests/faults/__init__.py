"""Output faults and escaping (issues 24.12-13 and 32.2-3, 32.6b): each test runs the real executable."""
