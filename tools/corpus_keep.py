"""The docs' vectors a one-shot command computes, kept: `atlas dataset index` embeds them all, `atlas tool`
finishes what its search started in the background before it exits (tools/docsearch/semantic.py)."""

from __future__ import annotations

from pathlib import Path


def index_docs(data_dir: Path, home: Path | None, semantic: bool) -> int:
    """Embed every doc passage now and keep the vectors (docs_vectors.db), so no later process ranks by
    words while it embeds; a no-op when docs search is lexical (ATLAS_SEMANTIC off, or no model)."""
    if not semantic:
        return 0
    from tools.corpus import open_corpus
    from tools.docsearch.semantic import encoder

    docs = open_corpus(data_dir, home, semantic=True).docs
    if encoder() is None or docs.vectors is None:
        print("docs search is lexical: the embedding model's package is not installed (make setup)")
        return 0
    docs.warm(wait=True)
    print(f"embedded {len(docs.vectors.texts)} doc passages, kept in {docs.vectors.store}")
    return 0


def keep_vectors(semantic: bool) -> None:
    """A one-shot command's docs embeddings, started in the background by a search, finished and kept."""
    if semantic:
        from tools.docsearch.semantic import settle

        settle()
