"""What the console reads (issue 37: it lived in three places): the index of runs it pages through
(`run_index`: sorted sets per filter and the day's counters), how that index is written later and in batches
(`index_filing`), the gap questions kept as vectors for grouping by meaning (`question_vectors`), and the votes
on answers that Slack's and Discord's feedback buttons record and the console counts (`votes`). The web pages are
bot/console/; the run records they open are workers/runs/store.py."""
