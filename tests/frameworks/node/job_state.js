// The job state the Bull and BullMQ checks read (their Queue classes share these reads):
// getJobCounts(), each completed job's return value, each failed job's reason, and when each
// delayed job was processed.
'use strict';

async function jobState(queue) {
  const counts = await queue.getJobCounts();
  const completed = await queue.getCompleted(0, -1);
  const failed = await queue.getFailed(0, -1);
  return {
    counts,
    returned: Object.fromEntries(completed.map((job) => [job.id, job.returnvalue])),
    failed: Object.fromEntries(failed.map((job) => [job.id, job.failedReason])),
    delayed_ran: Object.fromEntries(
        completed.filter((job) => job.opts.delay).map((job) => [job.id, job.processedOn])),
  };
}

module.exports = {jobState};
