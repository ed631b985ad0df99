"""Colbert's syntax: the grammar, the lexer and parser, the AST and located syntax errors."""
