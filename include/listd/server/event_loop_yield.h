// What the executor asks of the transport while a script is busy (Redis
// processEventsWhileBlocked): run the events that are ready now, from inside the script's count
// hook, so other clients get -BUSY or run the few commands allowed then (SCRIPT KILL, SHUTDOWN
// NOSAVE, ...). net::Server implements it; the executor never sees a socket, and an in-process
// test can drive it with a fake.
#pragma once

namespace listd::server {

class EventLoopYield {
 public:
  virtual ~EventLoopYield() = default;
  /// One bounded, non-blocking pass over the ready events and a flush of the other clients'
  /// output. Never runs the busy script's caller, never serves or times out waiters.
  virtual void run_events_while_busy() = 0;
};

}  // namespace listd::server
