# Real-client tests (issue 6): redis-py 4.3.4 (Debian python3-redis) under pytest in
# tests/python/, and redis-cli / redis-benchmark 7.0 (Debian redis-tools) in tests/tools/.
# Each pytest module is one ctest entry, run by Debian's /usr/bin/python3 against the listd of
# this build (LISTD_BINARY). The launcher and helpers they share are in tests/pylib
# (listd_testing). A skipped test fails its entry (listd_testing/pytest_hooks.py), so an entry
# that shows Passed ran every one of its tests.
#
# python.against_redis and tools.against_redis run the same two trees against redis-server
# 7.0.15 (tests/pylib/redis-server-as-listd stands in for listd): every expectation the tests
# hold must be Redis' own. Deselected there, by name: the tests of CLIENT SETINFO itself
# (a Redis 7.2 command listd implements; docs/COMPATIBILITY.md, "Deliberate differences"), and
# test_queue_view.py, listd's own extension (QUEUES, metrics-port), and the Sentinel failover
# (time; see below).
#
#   ctest --test-dir <build> -R '^(python|tools)\.' --output-on-failure
set(_listd_pylib ${CMAKE_CURRENT_LIST_DIR}/pylib)
set(_listd_pytest_env PYTHONPATH=${_listd_pylib} PYTHONDONTWRITEBYTECODE=1)

function(listd_pytest name dir binary target)
  # usage: listd_pytest(<ctest name> <dir under tests/> <LISTD_BINARY> <listd|redis>
  #                     <pytest args...>)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -E env ${_listd_pytest_env} LISTD_BINARY=${binary}
                   LISTD_TEST_TARGET=${target} /usr/bin/python3 -m pytest -q ${ARGN}
           WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR}/${dir})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300)
endfunction()

foreach(module client_options list_methods transactions introspection wire_conversations
               worker_app server_options launcher pubsub keyspace_notifications
               scripting output_buffer_limits replication replica_side slowlog
               memory_limit eviction acl tls dump_restore rdb_access_records
               stock_config queue_view daemonize sentinel command_getkeys command_info
               acl_key_access diskless_sync client_pause loading
               memory_stats replica_loading tls_replica tls_io
               client_tracking cluster_commands encoding_limits migrate listener_ports
               info_stats failover list_compression client_eviction sync_replicas
               master_link_end failover_loss)
  listd_pytest(python.${module} python $<TARGET_FILE:listd> listd test_${module}.py)
endforeach()
foreach(module redis_cli redis_cli_interactive redis_benchmark redis_cli_pubsub redis_cli_sync)
  listd_pytest(tools.${module} tools $<TARGET_FILE:listd> listd test_${module}.py)
endforeach()

# The job-queue frameworks (tests/frameworks): their real worker processes, default settings.
# Labelled sanitizer_pass: scripts/run-tests.sh runs them against the ASan listd only.
foreach(module celery rq sidekiq bull bullmq bee_queue limits prometheus_exporter)
  listd_pytest(frameworks.${module} frameworks $<TARGET_FILE:listd> listd test_${module}.py)
  set_tests_properties(frameworks.${module} PROPERTIES LABELS sanitizer_pass)
endforeach()
# Bull, BullMQ and bee-queue come from the npm registry (tests/frameworks/node/package-lock.json), installed
# into this build tree by the set-up entry frameworks.node_modules (skipped when already there).
# scripts/run-tests.sh points both of its build trees at one folder, so `npm ci` runs once a run.
set(LISTD_NODE_MODULES_DIR ${CMAKE_BINARY_DIR}/frameworks-node CACHE PATH
    "Where frameworks.node_modules installs the pinned Node frameworks")
set(_frameworks_node ${LISTD_NODE_MODULES_DIR})
add_test(NAME frameworks.node_modules
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/frameworks/node/install-node-modules.sh ${_frameworks_node})
set_tests_properties(frameworks.node_modules PROPERTIES FIXTURES_SETUP frameworks_node TIMEOUT 600)

set(_redis_as_listd ${_listd_pylib}/redis-server-as-listd)
# test_sentinel.py (python.sentinel, ~12 s, the slowest entry) is left out here to spare CI
# its time; it passes against redis-server too (docs/COMPATIBILITY.md, Sentinel).
listd_pytest(python.against_redis python ${_redis_as_listd} redis
             -k "not setinfo"
             --ignore=test_queue_view.py --ignore=test_sentinel.py
             --ignore=test_sync_replicas.py --ignore=test_failover_loss.py)
listd_pytest(tools.against_redis tools ${_redis_as_listd} redis)
listd_pytest(frameworks.against_redis frameworks ${_redis_as_listd} redis)
set_tests_properties(frameworks.bull frameworks.bullmq frameworks.bee_queue frameworks.against_redis PROPERTIES
                     FIXTURES_REQUIRED frameworks_node
                     ENVIRONMENT FRAMEWORKS_NODE_MODULES=${_frameworks_node}/node_modules)
