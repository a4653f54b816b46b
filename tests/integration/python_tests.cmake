# Tests written in Python against the built listd, run with Debian's /usr/bin/python3 (which
# ships python3-redis 4.3.4, the client the seed documents' workers use). They share the
# launcher in tests/pylib (listd_testing) with tests/python and tests/tools.
add_test(NAME integration.worker_soak
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/worker_soak_test.py $<TARGET_FILE:listd>)
set_tests_properties(integration.worker_soak PROPERTIES TIMEOUT 180
                     ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/tests/pylib;PYTHONDONTWRITEBYTECODE=1")
add_test(NAME integration.stream_group_soak
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/stream_group_soak_test.py $<TARGET_FILE:listd>)
set_tests_properties(integration.stream_group_soak PROPERTIES TIMEOUT 90
                     ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/tests/pylib;PYTHONDONTWRITEBYTECODE=1")
# The same soak at issue 15's size (20 consumers, 5 killed, 100,000 messages: about 10 s on the
# optimized build). Its load would only slow the sanitizer pass, which runs the small one.
add_test(NAME integration.stream_group_soak_full
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/stream_group_soak_test.py $<TARGET_FILE:listd>
                 --consumers 20 --messages 100000 --doomed 5 --deadline 300)
set_tests_properties(integration.stream_group_soak_full PROPERTIES TIMEOUT 360 LABELS optimized_pass
                     ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/tests/pylib;PYTHONDONTWRITEBYTECODE=1")
