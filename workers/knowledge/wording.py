"""What people read of the knowledge features: the note that a cited source changed, and the solved-thread
cards and their states. One place, so the words can be changed without reading the code."""

SECTION_CHANGED = "A docs section this answer cited has changed: {label}. It now reads:\n{quote}"
SECTION_GONE = "A docs section this answer cited is no longer in the docs: {label}."
FILE_CHANGED = "A file this answer cited has changed: {label} (now blob {sha})."
FILE_GONE = "A file this answer cited was removed: {label}."
RELEASE_CHANGED = "The notes of a release this answer cited have changed: {label}."
RELEASE_GONE = "A release this answer cited is no longer listed: {label}."
ISSUE_CHANGED = "An issue this answer cited is now {state}: {label}."
LINK = "\n{url}"
QUOTE_CHARS = 500

SOLVED_CITED_AS = "a solved thread"
SOLVED_DRAFTED = "Drafted as knowledge: {question}"
SOLVED_KEPT = "Kept as knowledge {id}: search_history finds it, cited as a solved thread."
SOLVED_NOT_KEPT = "Not kept as knowledge: {status}."
