// BullMQ 6.7.0 (ioredis 5) for the framework tests, driven by test_bullmq.py. Queue $QUEUE on
// $REDIS_URL, BullMQ's default settings.
//   node bullmq_app.js worker        a Worker (concurrency 1) and a QueueEvents until SIGTERM,
//                                    then both close(); the QueueEvents records every completed
//                                    and failed event it reads in the list bullmq-test:events
//   node bullmq_app.js <action> ...  one Queue action; its answer is one JSON line on stdout:
//     bulk COUNT        addBulk of COUNT jobs {value: i}: their ids
//     fail VALUE        a job that throws (attempts 1): its id
//     delay MS VALUE    a job with {delay: MS}: {id, due} (due: the earliest time it may run)
//     workers           getWorkers(): the names of the connections BullMQ counts as workers
//     state             getJobCounts(), and every completed job's return value and failed job's
//                       reason by id
// Each run of a job records "<id>:<value>" in the list bullmq-test:ran, so the test sees through
// redis that every job ran once.
'use strict';
const IORedis = require('ioredis');
const {Queue, QueueEvents, Worker} = require('bullmq');
const {jobState} = require('./job_state');

const url = new URL(process.env.REDIS_URL);
const connection = {host: url.hostname, port: Number(url.port)};
const name = process.env.QUEUE;

async function runJob(job, recorder) {
  if (job.data.fail) throw new Error(`job failed on purpose: ${job.data.value}`);
  await recorder.rpush('bullmq-test:ran', `${job.id}:${job.data.value}`);
  return job.data.value * 2;
}

function startWorker() {
  const recorder = new IORedis(connection);
  const worker = new Worker(name, (job) => runJob(job, recorder), {connection});
  // Reads the queue's event stream from its start (not '$'), so no event is missed however
  // late its first XREAD BLOCK is.
  const events = new QueueEvents(name, {connection, lastEventId: '0-0'});
  events.on('completed', ({jobId, returnvalue}) =>
    recorder.rpush('bullmq-test:events', `completed:${jobId}:${returnvalue}`));
  events.on('failed', ({jobId, failedReason}) =>
    recorder.rpush('bullmq-test:events', `failed:${jobId}:${failedReason}`));
  process.on('SIGTERM', () => Promise.all([worker.close(), events.close()])
    .then(() => recorder.quit())
    .then(() => process.exit(0), (error) => {
      console.error(error);
      process.exit(1);
    }));
}

async function act(queue, action, args) {
  switch (action) {
    case 'bulk': {
      const jobs = Array.from({length: Number(args[0])}, (_, i) => ({name: 'n', data: {value: i}}));
      return (await queue.addBulk(jobs)).map((job) => job.id);
    }
    case 'fail':
      return (await queue.add('f', {fail: true, value: Number(args[0])})).id;
    case 'delay': {
      const delay = Number(args[0]);
      const due = Date.now() + delay;
      return {id: (await queue.add('d', {value: Number(args[1])}, {delay})).id, due};
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
    startWorker();
    return;
  }
  const queue = new Queue(name, {connection});
  const answer = await act(queue, action, args);
  await queue.close();
  process.stdout.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
