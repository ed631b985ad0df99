"""What Colbert's drawing calls and the live view share: the display state and the user's drawings."""
