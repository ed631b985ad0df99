"""Colbert's compiler: symbols, expressions and statements into the runtime's finite-state machines."""
