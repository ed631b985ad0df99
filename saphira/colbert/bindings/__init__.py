"""The Saphira API as Colbert sees it (``sf*`` names): one module per topic, and the table machinery."""
