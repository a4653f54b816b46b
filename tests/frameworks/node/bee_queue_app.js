// bee-queue 2.0.0 (node-redis 3) for the framework tests, driven by test_bee_queue.py. Queue
// $QUEUE on $REDIS_URL, bee-queue's default settings except activateDelayedJobs on the worker
// (bee-queue runs delayed jobs only where that is set).
//   node bee_queue_app.js worker          Queue#process (concurrency 1) until SIGTERM, then close()
//   node bee_queue_app.js <action> ...    one client action; its answer is one JSON line:
//     bulk COUNT        saveAll of COUNT jobs {value: i}, then their results as the worker
//                       reports them (the job's `succeeded` event, bee-queue's pub/sub): {id: result}
//     fail VALUE        a job that throws: {id, error} (its `failed` event)
//     delay MS VALUE    a job delayUntil(now + MS): {id, due, result}
//     state             checkHealth(), and the ids of the succeeded and failed jobs
// Each run of a job records "<id>:<value>:<time it ran, ms>" in the list bee-test:ran. Every wait
// for an event is bounded (60 s): a job that never reports fails the action.
'use strict';
const Queue = require('bee-queue');

const [action, ...args] = process.argv.slice(2);
const worker = action === 'worker';
const queue = new Queue(process.env.QUEUE, {
  redis: {url: process.env.REDIS_URL},
  isWorker: worker,
  activateDelayedJobs: worker,
});

async function runJob(job) {
  if (job.data.fail) throw new Error(`job failed on purpose: ${job.data.value}`);
  const record = `${job.id}:${job.data.value}:${Date.now()}`;
  await new Promise((resolve, reject) => queue.client.rpush(
      'bee-test:ran', record, (error) => error ? reject(error) : resolve()));
  return job.data.value * 2;
}

// The job's outcome as its events report it: resolves with [event, value].
function outcome(job) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`job ${job.id}: no outcome in 60 s`)), 60000);
    const settle = (event) => (value) => {
      clearTimeout(timer);
      resolve([event, event === 'failed' ? value.message : value]);
    };
    job.on('succeeded', settle('succeeded'));
    job.on('failed', settle('failed'));
  });
}

async function state() {
  const health = await queue.checkHealth();
  const succeeded = await queue.getJobs('succeeded', {size: 1000});
  const failed = await queue.getJobs('failed', {size: 1000});
  return {health, succeeded: succeeded.map((job) => job.id), failed: failed.map((job) => job.id)};
}

async function act() {
  switch (action) {
    case 'bulk': {
      const jobs = Array.from({length: Number(args[0])}, (_, i) => queue.createJob({value: i}));
      const outcomes = jobs.map(outcome);
      const errors = await queue.saveAll(jobs);
      if (errors.size) throw new Error(`saveAll failed for ${errors.size} jobs`);
      const results = {};
      for (const [i, [event, value]] of (await Promise.all(outcomes)).entries()) {
        results[jobs[i].id] = event === 'succeeded' ? value : `${event}: ${value}`;
      }
      return results;
    }
    case 'fail': {
      const job = queue.createJob({fail: true, value: Number(args[0])});
      const done = outcome(job);
      await job.save();
      const [event, error] = await done;
      return {id: job.id, event, error};
    }
    case 'delay': {
      const due = Date.now() + Number(args[0]);
      const job = queue.createJob({value: Number(args[1])}).delayUntil(due);
      const done = outcome(job);
      await job.save();
      const [event, result] = await done;
      return {id: job.id, due, event, result};
    }
    case 'state':
      return state();
    default:
      throw new Error(`unknown action ${action}`);
  }
}

async function main() {
  await queue.ready();
  if (worker) {
    process.on('SIGTERM', () => queue.close(30000).then(() => process.exit(0), (error) => {
      console.error(error);
      process.exit(1);
    }));
    queue.process(runJob);
    return;
  }
  const answer = await act();
  await queue.close();
  // Exit once the answer is written: a closed queue's timers would keep Node up for seconds.
  process.stdout.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
