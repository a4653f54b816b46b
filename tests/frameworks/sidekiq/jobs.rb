# The Sidekiq 6.4 jobs the framework tests run (required by the `sidekiq` worker process and by
# client.rb). Every run records itself in a redis list, so a test asserts on what ran through
# redis, not through logs: `sidekiq-test:ran` gets one "<jid>:<value>" per successful run and the
# hash `sidekiq-test:attempts` counts the attempts of each job that fails on purpose (by jid).
require "sidekiq"

# redis-rb 4.8 warns on every call Sidekiq 6.4 makes the 4.x way (brpop's positional timeout,
# sadd's return value): quiet, so that a failing test's worker log shows what matters.
Redis.silence_deprecations = true

# Records each run of a plain job.
class RecordJob
  include Sidekiq::Worker

  def perform(value)
    Sidekiq.redis { |conn| conn.rpush("sidekiq-test:ran", "#{jid}:#{value}") }
  end
end

# Records the time it ran, for a job enqueued with perform_in: never before it was due.
class ScheduledJob
  include Sidekiq::Worker

  def perform(due)
    Sidekiq.redis { |conn| conn.rpush("sidekiq-test:ran", "#{jid}:#{Time.now.to_f}:#{due}") }
  end
end

# Always raises; no retries, so its first failure sends it to the dead set.
class DeadJob
  include Sidekiq::Worker
  sidekiq_options retry: 0

  def perform(value)
    Sidekiq.redis { |conn| conn.hincrby("sidekiq-test:attempts", jid, 1) }
    raise ArgumentError, "job failed on purpose: #{value}"
  end
end

# Fails on its first attempt and succeeds on its retry, which the scheduled poller must move
# from the retry set back to the queue. One second (plus Sidekiq's own jitter) before the retry.
class FlakyJob
  include Sidekiq::Worker
  sidekiq_options retry: 1
  sidekiq_retry_in { |_count, _exception| 1 }

  def perform(value)
    attempt = Sidekiq.redis { |conn| conn.hincrby("sidekiq-test:attempts", jid, 1) }
    raise "first attempt fails on purpose" if attempt == 1
    Sidekiq.redis { |conn| conn.rpush("sidekiq-test:ran", "#{jid}:#{value}") }
  end
end
