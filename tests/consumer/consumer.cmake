# cmake -DBUILD=<pairwise build> -DPROJECT=<consumer source> -DWORK=<scratch> -P consumer.cmake:
# installs the pairwise build into WORK/prefix, configures and builds the consumer project against
# it with find_package(pairwise), and runs its program.
file(REMOVE_RECURSE ${WORK})
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD};--prefix;${WORK}/prefix"
    "${CMAKE_COMMAND};-S;${PROJECT};-B;${WORK}/build;-DCMAKE_PREFIX_PATH=${WORK}/prefix;-DCMAKE_BUILD_TYPE=Release"
    "${CMAKE_COMMAND};--build;${WORK}/build"
    "${WORK}/build/md_ten_steps")
  execute_process(COMMAND ${step} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "consumer step failed (${code}): ${step}")
  endif()
endforeach()
