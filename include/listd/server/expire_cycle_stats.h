// INFO stats' expired_stale_perc, expired_time_cap_reached_count and
// expire_cycle_cpu_milliseconds: what each run of the active expiry step
// (Executor::active_expire_step) measured, with the meaning Redis' activeExpireCycle gives them.
//  - the stale share: of the keys with a TTL sampled at random when the step starts, how many
//    were already past their deadline (logically expired, not yet reclaimed); kept as Redis'
//    running average, each step's share weighing 5 %;
//  - the cap count: steps that stopped at their limit with deadlines still due (Redis' limit
//    is a share of CPU time, listd's is a number of keys: kExpireBudgetPerTick);
//  - the time: the steps' wall-clock duration, as Redis sums ustime() deltas.
// The counters live in ServerStats, so CONFIG RESETSTAT zeroes them (Redis resetServerStats).
#pragma once

#include <cstddef>
#include <cstdint>

namespace listd::server {

struct ExpireCycleStats {
  double stale_share = 0;                    ///< 0..1; INFO prints it as a percentage
  std::uint64_t time_cap_reached_count = 0;  ///< steps cut short with work left
  std::uint64_t time_used_us = 0;            ///< summed duration of the steps

  /// One step: `stale` of the `sampled` keys were past their deadline, it took `elapsed_us`,
  /// and `cut_short` says it stopped at its limit with deadlines still due.
  void record(std::size_t sampled, std::size_t stale, bool cut_short,
              std::uint64_t elapsed_us) noexcept {
    const double share = sampled ? static_cast<double>(stale) / static_cast<double>(sampled) : 0.0;
    stale_share = share * 0.05 + stale_share * 0.95;
    if (cut_short) ++time_cap_reached_count;
    time_used_us += elapsed_us;
  }
  double stale_percent() const noexcept { return stale_share * 100; }
  std::uint64_t cpu_milliseconds() const noexcept { return time_used_us / 1000; }
};

}  // namespace listd::server
