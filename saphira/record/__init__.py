"""Recordings of runs (the byte stream and what the session saw), their playback, and MCAP export."""
