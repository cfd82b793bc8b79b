"""What is generated from the schemas: Markdown documentation and the annotated hex view."""
