// The RDB file's opcodes and object type bytes (Redis 7.0 rdb.h), shared by the reader and
// the writer.
#pragma once

namespace listd::persistence::rdb_format {

inline constexpr unsigned char kTypeString = 0;
inline constexpr unsigned char kTypeList = 1;
inline constexpr unsigned char kTypeSet = 2;
inline constexpr unsigned char kTypeZSet = 3;
inline constexpr unsigned char kTypeHash = 4;
inline constexpr unsigned char kTypeZSet2 = 5;
inline constexpr unsigned char kTypeListZiplist = 10;
inline constexpr unsigned char kTypeSetIntset = 11;
inline constexpr unsigned char kTypeZSetZiplist = 12;
inline constexpr unsigned char kTypeHashZiplist = 13;
inline constexpr unsigned char kTypeListQuicklist = 14;
inline constexpr unsigned char kTypeHashListpack = 16;
inline constexpr unsigned char kTypeZSetListpack = 17;
inline constexpr unsigned char kTypeListQuicklist2 = 18;
inline constexpr unsigned char kTypeStreamListpacks2 = 19;
inline constexpr unsigned char kTypeSetListpack = 20;
inline constexpr unsigned char kOpFunction2 = 245;
inline constexpr unsigned char kOpFunction = 246;
inline constexpr unsigned char kOpModuleAux = 247;
inline constexpr unsigned char kOpIdle = 248;
inline constexpr unsigned char kOpFreq = 249;
inline constexpr unsigned char kOpAux = 250;
inline constexpr unsigned char kOpResizeDb = 251;
inline constexpr unsigned char kOpExpireTimeMs = 252;
inline constexpr unsigned char kOpExpireTime = 253;
inline constexpr unsigned char kOpSelectDb = 254;
inline constexpr unsigned char kOpEof = 255;

}  // namespace listd::persistence::rdb_format
