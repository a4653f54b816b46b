// Bull 4.16.5 (ioredis 5) for the framework tests, driven by test_bull.py. Queue $QUEUE on
// $REDIS_URL, Bull's default settings.
//   node bull_app.js worker          Queue#process (concurrency 1) until SIGTERM, then close()
//   node bull_app.js <action> ...    one client action; its answer is one JSON line on stdout:
//     bulk COUNT        addBulk of COUNT jobs {value: i}: their ids
//     fail VALUE        a job that throws (attempts 1): its id
//     delay MS VALUE    a job with {delay: MS}: {id, due} (due: the earliest time it may run)
//     workers           getWorkers(): the names of the connections Bull counts as workers
//     state             getJobCounts(), and every completed job's return value and failed job's
//                       reason by id
// Each run of a job records "<id>:<value>" in the list bull-test:ran, so the test sees through
// redis that every job ran once.
'use strict';
const Queue = require('bull');
const {jobState} = require('./job_state');

const queue = new Queue(process.env.QUEUE, process.env.REDIS_URL);

async function runJob(job) {
  if (job.data.fail) throw new Error(`job failed on purpose: ${job.data.value}`);
  await queue.client.rpush('bull-test:ran', `${job.id}:${job.data.value}`);
  return job.data.value * 2;
}

async function act(action, args) {
  switch (action) {
    case 'bulk': {
      const jobs = Array.from({length: Number(args[0])}, (_, i) => ({data: {value: i}}));
      return (await queue.addBulk(jobs)).map((job) => job.id);
    }
    case 'fail':
      return (await queue.add({fail: true, value: Number(args[0])})).id;
    case 'delay': {
      const delay = Number(args[0]);
      const due = Date.now() + delay;
      return {id: (await queue.add({value: Number(args[1])}, {delay})).id, due};
    }
    case 'workers':
      return (await queue.getWorkers()).map((client) => client.name);
    case 'state':
      return jobState(queue);
    default:
      throw new Error(`unknown action ${action}`);
  }
}

async function main() {
  const [action, ...args] = process.argv.slice(2);
  if (action === 'worker') {
    process.on('SIGTERM', () => queue.close().then(() => process.exit(0), (error) => {
      console.error(error);
      process.exit(1);
    }));
    queue.process(runJob);  // returns only when the queue closes
    return;
  }
  const answer = await act(action, args);
  await queue.close();
  // Exit once the answer is written: a closed queue's timers would keep Node up for seconds.
  process.stdout.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
