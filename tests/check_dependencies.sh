#!/usr/bin/env bash
# Checks that includes between listd's parts point down the dependency table only
# (docs/ARCHITECTURE.md, docs/CONVENTIONS.md). Registered in ctest as
# `architecture.dependency_direction`.
#
#   tests/check_dependencies.sh <source_dir>      # checks <source_dir>/src and <source_dir>/include/listd
#   tests/check_dependencies.sh --self-test       # proves the checker catches each kind of violation
#                                                 # (also run first by every check)
#
# A file under src/<part>/ or include/listd/<part>/ belongs to <part>. Allowed edges:
#   app -> anything; net -> server, protocol, config; server -> blocking, store, protocol,
#   persistence, config, script; script -> protocol; persistence -> store, protocol;
#   blocking -> store; config -> nothing but base; protocol -> nothing; store -> nothing.
# Every part may use base (Redis' text and number primitives); base uses nothing of ours.
# Third-party rules: asio only in net (and src/app/main.cpp); OpenSSL (openssl/...) only in net
# (the TLS filter, net/tls_session.h); liburing only in net (the io_uring backend,
# net/uring_loop.h); spdlog only in net and app; Lua
# (lua.h, lua.hpp, lualib.h, lauxlib.h, luaconf.h, lua-cjson.h, lua-bitop.h) only in script.
# Includes are recognised as "listd/<part>/...", <listd/<part>/...> and relative "..." paths
# that resolve into another part's folder. Exit status 1 and one `file:line: message` per
# violation; 0 when clean.
set -u

declare -A allowed=(
  [app]="app net server blocking store protocol persistence config script base"
  [net]="net server protocol config base"
  [server]="server blocking store protocol persistence config script base"
  [script]="script protocol base"
  [persistence]="persistence store protocol base"
  [blocking]="blocking store base"
  [config]="config base"
  [protocol]="protocol base"
  [store]="store base"
  [base]="base"
)

# The part a path (relative to the source dir) belongs to, or "" if it is outside src/ and include/listd/.
part_of() {
  case "$1" in
    src/*/*) local p=${1#src/}; echo "${p%%/*}" ;;
    include/listd/*/*) local p=${1#include/listd/}; echo "${p%%/*}" ;;
    *) echo "" ;;
  esac
}

check_tree() {
  local root=$1 violations=0 checked=0
  if [[ ! -d $root/src ]]; then
    echo "check_dependencies: no src/ under '$root'" >&2
    return 2
  fi
  root=$(cd "$root" && pwd)
  local file rel part
  while IFS= read -r -d '' file; do
    rel=${file#"$root"/}
    part=$(part_of "$rel")
    [[ -z $part ]] && continue
    checked=$((checked + 1))
    if [[ -z ${allowed[$part]+x} ]]; then
      echo "$rel:1: part '$part' is not in the dependency table (tests/check_dependencies.sh, docs/ARCHITECTURE.md)"
      violations=$((violations + 1))
      continue
    fi
    local lineno=0 line target dep resolved
    while IFS= read -r line || [[ -n $line ]]; do
      lineno=$((lineno + 1))
      [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\"\<])([^\"\>]+)[\"\>] ]] || continue
      local quote=${BASH_REMATCH[1]}
      target=${BASH_REMATCH[2]}
      dep=""
      if [[ $target =~ ^listd/([^/]+)/ ]]; then
        dep=${BASH_REMATCH[1]}
      elif [[ $quote == '"' && $target == *..* ]]; then
        resolved=$(realpath -m "$(dirname "$file")/$target")
        dep=$(part_of "${resolved#"$root"/}")
      fi
      if [[ -n $dep && " ${allowed[$part]} " != *" $dep "* ]]; then
        echo "$rel:$lineno: upward include: $part -> $dep ($target); $part may use: ${allowed[$part]}"
        violations=$((violations + 1))
      fi
      if [[ $target == asio.hpp || $target == asio/* ]] &&
         [[ $part != net && $rel != src/app/main.cpp ]]; then
        echo "$rel:$lineno: asio is only for net (and src/app/main.cpp): $target"
        violations=$((violations + 1))
      fi
      if [[ $target =~ ^(lua5\.1/)?(lua\.h|lua\.hpp|lualib\.h|lauxlib\.h|luaconf\.h|lua-cjson\.h|lua-bitop\.h)$ ]] &&
         [[ $part != script ]]; then
        echo "$rel:$lineno: Lua is only for script: $target"
        violations=$((violations + 1))
      fi
      if [[ $target == openssl/* && $part != net ]]; then
        echo "$rel:$lineno: OpenSSL is only for net: $target"
        violations=$((violations + 1))
      fi
      if [[ ($target == liburing.h || $target == liburing/*) && $part != net ]]; then
        echo "$rel:$lineno: liburing is only for net: $target"
        violations=$((violations + 1))
      fi
      if [[ $target == spdlog/* && $part != net && $part != app ]]; then
        echo "$rel:$lineno: spdlog is only for net and app: $target"
        violations=$((violations + 1))
      fi
    done <"$file"
  done < <(find "$root/src" "$root/include/listd" -type f \
             \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.cc' -o -name '*.ipp' \) \
             -print0 2>/dev/null | sort -z)
  if ((checked == 0)); then
    echo "check_dependencies: no source files found under $root/src" >&2
    return 2
  fi
  if ((violations > 0)); then
    echo "check_dependencies: $violations violation(s) in $checked files" >&2
    return 1
  fi
  echo "check_dependencies: $checked files, all includes point down"
  return 0
}

# Builds small trees with one violation each (and one clean tree) and checks the verdicts.
self_test() {
  local tmp failures=0
  tmp=$(mktemp -d) || return 2
  trap 'rm -rf "$tmp"' RETURN
  make_tree() {  # make_tree <dir> <relative file> <content>
    mkdir -p "$1/src/store" "$1/include/listd/store" "$(dirname "$1/$2")"
    printf '#include <string>\n' >"$1/src/store/base.cpp"
    printf '%s\n' "$3" >"$1/$2"
  }
  expect() {  # expect <0|1> <name> <file> <content>
    local dir=$tmp/$2 out status
    make_tree "$dir" "$3" "$4"
    out=$(check_tree "$dir" 2>&1); status=$?
    if [[ $status -ne $1 ]]; then
      echo "self-test FAILED: $2 exited $status, expected $1: $out"
      failures=$((failures + 1))
    elif [[ $1 -eq 1 && $out != *"$3:"[0-9]* ]]; then
      echo "self-test FAILED: $2 did not name $3:<line>: $out"
      failures=$((failures + 1))
    fi
  }
  expect 0 clean_server src/server/a.cpp '#include "listd/store/dict.h"'
  expect 0 clean_app src/app/x.cpp '#include "listd/net/server.h"'
  expect 0 clean_main_asio src/app/main.cpp '#include <asio.hpp>'
  expect 0 clean_net_spdlog src/net/c.cpp '#include <spdlog/spdlog.h>'
  expect 0 clean_commented src/store/c.cpp '// #include "listd/server/executor.h"'
  expect 0 clean_store_base src/store/n.cpp '#include "listd/base/number.h"'
  expect 0 clean_config_base src/config/o.cpp '#include "listd/base/redis_text.h"'
  expect 0 clean_server_config src/server/x.cpp '#include "listd/config/config.h"'
  expect 1 store_up src/store/b.cpp '#include "listd/server/executor.h"'
  expect 1 header_up include/listd/protocol/p.h '#include <listd/store/value.h>'
  expect 1 server_to_net src/server/s.cpp '  #  include "listd/net/connection.h"'
  expect 1 blocking_to_server src/blocking/w.cpp '#include "listd/server/client.h"'
  expect 1 relative_up src/store/r.cpp '#include "../server/x.h"'
  expect 1 asio_in_server src/server/e.cpp '#include <asio.hpp>'
  expect 1 asio_in_app_lib src/app/config_loader.cpp '#include <asio/io_context.hpp>'
  expect 1 spdlog_in_server src/server/l.cpp '#include <spdlog/spdlog.h>'
  expect 0 clean_net_openssl src/net/t.cpp '#include <openssl/ssl.h>'
  expect 1 openssl_in_server src/server/t.cpp '#include <openssl/ssl.h>'
  expect 0 clean_net_liburing src/net/u.cpp '#include <liburing.h>'
  expect 1 liburing_in_server src/server/u.cpp '#include <liburing.h>'
  expect 1 base_up src/base/b.cpp '#include "listd/store/value.h"'
  expect 1 base_relative_up include/listd/base/h.h '#include "../protocol/request_parser.h"'
  expect 1 store_to_config src/store/s.cpp '#include "listd/config/config.h"'
  expect 1 config_to_server src/config/c.cpp '#include "listd/server/executor.h"'
  expect 1 unknown_part src/util/u.cpp '#include <string>'
  expect 0 clean_script_lua src/script/e.cpp '#include <lua.hpp>'
  expect 0 clean_server_script src/server/s.cpp '#include "listd/script/engine.h"'
  expect 1 lua_in_server src/server/l.cpp '#include <lua.hpp>'
  expect 1 lauxlib_in_store src/store/l.cpp '#include <lauxlib.h>'
  expect 1 script_to_server src/script/s.cpp '#include "listd/server/executor.h"'
  expect 1 script_to_store src/script/t.cpp '#include "listd/store/value.h"'
  if ((failures > 0)); then return 1; fi
  echo "check_dependencies self-test: all cases behave"
  return 0
}

case "${1:-}" in
  --self-test) self_test; exit $? ;;
  "" | -h | --help)
    echo "usage: $0 <source_dir> | --self-test" >&2
    exit 2 ;;
  *)
    # The checker proves itself first, so a broken regex cannot turn the real check green.
    if ! st=$(self_test 2>&1); then
      echo "$st" >&2
      exit 1
    fi
    check_tree "$1"; exit $? ;;
esac
