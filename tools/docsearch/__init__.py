"""The docs search engine: pages and passages from Markdown, MkDocs and RST; BM25, embeddings and fusion."""
