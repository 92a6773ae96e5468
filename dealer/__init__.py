"""Rule engine: cards, games, settlement and the ledger. Imports nothing from vision/ or webui/."""
