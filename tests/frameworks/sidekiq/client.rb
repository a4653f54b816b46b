# The Sidekiq 6.4 client side of the framework tests, driven by test_sidekiq.py: one action per
# run, its answer as one JSON line on stdout. The server is $REDIS_URL (Sidekiq's own default).
#   ruby client.rb async COUNT     COUNT RecordJob.perform_async(i): prints the jids
#   ruby client.rb in SECONDS      ScheduledJob.perform_in(SECONDS, due time): prints the jid
#   ruby client.rb dead V | flaky V   DeadJob / FlakyJob.perform_async(V): prints the jid
#   ruby client.rb state           Sidekiq::Stats, ProcessSet, and the dead/retry/scheduled sets
require "json"
require "sidekiq/api"
require_relative "jobs"

def state
  stats = Sidekiq::Stats.new
  {
    "processed" => stats.processed, "failed" => stats.failed, "enqueued" => stats.enqueued,
    "dead_size" => stats.dead_size, "retry_size" => stats.retry_size,
    "scheduled_size" => stats.scheduled_size, "processes_size" => stats.processes_size,
    "workers_size" => stats.workers_size, "queues" => stats.queues,
    "processes" => Sidekiq::ProcessSet.new.map do |p|
      {"identity" => p.identity, "pid" => p["pid"], "concurrency" => p["concurrency"],
       "busy" => p["busy"], "queues" => p["queues"], "quiet" => p["quiet"]}
    end,
    "dead" => Sidekiq::DeadSet.new.map(&:jid), "retry" => Sidekiq::RetrySet.new.map(&:jid),
    "scheduled" => Sidekiq::ScheduledSet.new.map(&:jid)
  }
end

action, *args = ARGV
answer =
  case action
  when "async" then Array.new(Integer(args[0])) { |i| RecordJob.perform_async(i) }
  when "in" then ScheduledJob.perform_in(Float(args[0]), Time.now.to_f + Float(args[0]))
  when "dead" then DeadJob.perform_async(Integer(args[0]))
  when "flaky" then FlakyJob.perform_async(Integer(args[0]))
  when "state" then state
  else abort "unknown action #{action.inspect}"
  end
puts JSON.generate(answer)
