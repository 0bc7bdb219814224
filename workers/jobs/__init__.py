"""Every RQ job Atlas enqueues, by the name RQ stores (workers/runs/job_names.py). Each fetches the runtime the process
built."""
