"""The manual's behavior language (``.beh`` files: ``BeginBehavior … EndBehavior``), parsed and compiled
into the same behavior objects as Python behaviors."""
