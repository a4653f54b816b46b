# Real-client tests (issue 6): redis-py 4.3.4 (Debian python3-redis) under pytest in
# tests/python/, and redis-cli / redis-benchmark 7.0 (Debian redis-tools) in tests/tools/.
# Each pytest module is one ctest entry, run by Debian's /usr/bin/python3 against the listd of
# this build (LISTD_BINARY). Tests that need the companion types (hashes, sets, sorted sets:
# marker "companion") run in their own entries, which report "Skipped" (exit 77, printed
# reasons) while those commands are missing instead of passing silently.
#
#   ctest --test-dir <build> -R 'python|tools' --output-on-failure
set(_listd_pytest_env
    LISTD_BINARY=$<TARGET_FILE:listd> PYTHONDONTWRITEBYTECODE=1 LISTD_ALL_SKIPPED_STATUS=77)

function(listd_pytest name dir)
  # usage: listd_pytest(<ctest name> <dir under tests/> <pytest args...>)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -E env ${_listd_pytest_env}
                   /usr/bin/python3 -m pytest -q ${ARGN}
           WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR}/${dir})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endfunction()

foreach(module client_options list_methods transactions introspection wire_conversations
               worker_app)
  listd_pytest(python.${module} python -m "not companion" test_${module}.py)
endforeach()
listd_pytest(python.companion_types python -m companion)

foreach(module redis_cli redis_cli_interactive redis_benchmark)
  listd_pytest(tools.${module} tools -m "not companion" test_${module}.py)
endforeach()
listd_pytest(tools.companion_types tools -m companion)
