"""The docs' vectors outside a worker: `atlas dataset index` embeds them all and keeps them; `atlas tool` answers
by words at once when they are not kept yet and leaves the embedding to a worker (tools/docsearch/semantic.py)."""

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


LEFT_TO_WORKER = (
    "docs search ranked by words: the docs are not embedded yet (a running `atlas worker` embeds "
    "them at start and keeps them; or run `atlas dataset index`)"
)


def left_to_worker(semantic: bool) -> str | None:
    """A one-shot command's note when its search ranked by words because the docs' vectors were not kept yet,
    else None. It does not wait for them (91 s on a 76-page site, issue 35): a worker embeds at start."""
    if not semantic:
        return None
    from tools.docsearch.semantic import settle

    return LEFT_TO_WORKER if settle(timeout=0) else None
