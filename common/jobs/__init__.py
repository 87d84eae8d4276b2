"""Long work (fine-tuning, re-indexing, MLM heads, MLM pretraining) as jobs: each runs as a
command (`python -m training ...`, `python -m indexer ...`) in its own process, detached from
whoever started it, one at a time per machine, with its state, progress and log on disk under
`$BERTSCOPE_HOME/jobs`. A job whose process died reads as failed and, where its command can
continue from what it saved, resumes. Generic: the job kinds (which command, how it resumes)
live with the commands (`training.jobs`, `indexer.jobs`)."""

from .progress import PROGRESS_ENV, JobProgress, ProgressFile, job_progress_file, read_progress
from .records import JobSpec, JobState, JobStatus
from .runner import Job, JobError, JobRunner, duration, progress_text

__all__ = [
    "PROGRESS_ENV",
    "Job",
    "JobError",
    "JobProgress",
    "JobRunner",
    "JobSpec",
    "JobState",
    "JobStatus",
    "ProgressFile",
    "duration",
    "job_progress_file",
    "progress_text",
    "read_progress",
]
