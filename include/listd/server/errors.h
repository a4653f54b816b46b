// Error replies, byte-identical to Redis 7.0 (without the leading '-' and trailing CRLF, which
// the ReplyWriter adds). Tests reference these constants instead of repeating the texts.
#pragma once

#include <string>
#include <string_view>

namespace listd::server {

inline constexpr std::string_view kWrongTypeErr =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kSyntaxErr = "ERR syntax error";
inline constexpr std::string_view kNotIntegerErr = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloatErr = "ERR value is not a valid float";
inline constexpr std::string_view kMustBePositiveErr =
    "ERR value is out of range, must be positive";
inline constexpr std::string_view kOutOfRangeErr = "ERR value is out of range";
inline constexpr std::string_view kNoSuchKeyErr = "ERR no such key";
inline constexpr std::string_view kIndexOutOfRangeErr = "ERR index out of range";
inline constexpr std::string_view kDbIndexOutOfRangeErr = "ERR DB index is out of range";
inline constexpr std::string_view kInvalidDbIndexErr = "ERR invalid DB index";
inline constexpr std::string_view kTimeoutNotFloatErr =
    "ERR timeout is not a float or out of range";
inline constexpr std::string_view kTimeoutNegativeErr = "ERR timeout is negative";
inline constexpr std::string_view kNumkeysErr = "ERR numkeys should be greater than 0";
inline constexpr std::string_view kCountGreaterThanZeroErr = "ERR count should be greater than 0";
inline constexpr std::string_view kNoAuthErr = "NOAUTH Authentication required.";
inline constexpr std::string_view kOomErr =
    "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr std::string_view kMisconfRdbErr =
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
    "disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB "
    "error.";
inline constexpr std::string_view kWrongPassErr =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kAuthNotConfiguredErr =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr std::string_view kNoProtoErr = "NOPROTO unsupported protocol version";
inline constexpr std::string_view kExecAbortErr =
    "EXECABORT Transaction discarded because of previous errors.";
inline constexpr std::string_view kExecWithoutMultiErr = "ERR EXEC without MULTI";
inline constexpr std::string_view kDiscardWithoutMultiErr = "ERR DISCARD without MULTI";
inline constexpr std::string_view kMultiNestedErr = "ERR MULTI calls can not be nested";
inline constexpr std::string_view kWatchInMultiErr = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view kSameObjectErr =
    "ERR source and destination objects are the same";
inline constexpr std::string_view kClientNameErr =
    "ERR Client names cannot contain spaces, newlines or special characters.";
inline constexpr std::string_view kNoSuchClientErr = "ERR No such client";
/// SRANDMEMBER / HRANDFIELD / ZRANDMEMBER with a count outside [-LONG_MAX, LONG_MAX].
inline constexpr std::string_view kCountRangeErr =
    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
inline constexpr std::string_view kOverflowErr = "ERR increment or decrement would overflow";

/// Redis processCommand's refusal in RESP2 subscribed mode.
inline std::string subscribed_mode_error(std::string_view full_name) {
  std::string e = "ERR Can't execute '";
  e.append(full_name);
  e +=
      "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context";
  return e;
}

/// A write from a normal client on a read-only replica (Redis shared.roslaveerr).
inline constexpr std::string_view kReadOnlyReplicaErr =
    "READONLY You can't write against a read only replica.";
/// A write on a master with fewer good replicas than min-replicas-to-write (shared.noreplicaserr).
inline constexpr std::string_view kNoReplicasErr = "NOREPLICAS Not enough good replicas to write.";
/// A command without the stale flag on a replica whose link is down, with
/// replica-serve-stale-data no (shared.masterdownerr).
inline constexpr std::string_view kMasterDownErr =
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
/// What a blocked client gets when its server becomes a replica (Redis
/// disconnectAllBlockedClients).
inline constexpr std::string_view kUnblockedDemotionErr =
    "UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
    "replica?)";
/// PSYNC to a replica whose own link is down (Redis syncCommand).
inline constexpr std::string_view kNoMasterLinkErr =
    "NOMASTERLINK Can't SYNC while not connected with my master";

// CLIENT TRACKING / CACHING (Redis 7.0 networking.c clientCommand).
inline constexpr std::string_view kTrackingOneRedirectErr =
    "ERR A client can only redirect to a single other client";
inline constexpr std::string_view kTrackingNoSuchRedirectErr =
    "ERR The client ID you want redirect to does not exist";
inline constexpr std::string_view kTrackingPrefixNeedsBcastErr =
    "ERR PREFIX option requires BCAST mode to be enabled";
inline constexpr std::string_view kTrackingSwitchBcastErr =
    "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then "
    "re-enabling it with a different mode.";
inline constexpr std::string_view kTrackingBcastOptErr =
    "ERR OPTIN and OPTOUT are not compatible with BCAST";
inline constexpr std::string_view kTrackingOptinOptoutErr =
    "ERR You can't specify both OPTIN mode and OPTOUT mode";
inline constexpr std::string_view kTrackingSwitchOptErr =
    "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
    "re-enabling it with a different mode.";
inline constexpr std::string_view kCachingNotTrackingErr =
    "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
    "OPTOUT mode enabled";
inline constexpr std::string_view kCachingYesErr =
    "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.";
inline constexpr std::string_view kCachingNoErr =
    "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.";

/// Redis addReplyErrorArity: "ERR wrong number of arguments for '<full name>' command".
inline std::string arity_error(std::string_view full_name) {
  std::string e = "ERR wrong number of arguments for '";
  e.append(full_name);
  e += "' command";
  return e;
}

}  // namespace listd::server
