"""The dealer's page: Flask app, templates and static assets (all served locally)."""
