# cmake -DBUILD=<pairwise build> -DPROJECT=<consumer source> -DWORK=<scratch> [-DPYTHON=<python>
# -DPYSITE=<site-packages relative to the prefix>] [-DCXX_COMPILER=<the build's compiler>
# -DCXX_FLAGS=<the build's flags: a sanitizer build's library needs a sanitizer-built program, with
# the same compiler's flags>] -P consumer.cmake: installs the pairwise build
# into WORK/prefix, configures and builds the consumer project against it with find_package(pairwise),
# runs its program, and imports the installed Python package.
file(REMOVE_RECURSE ${WORK})
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD};--prefix;${WORK}/prefix"
    "${CMAKE_COMMAND};-S;${PROJECT};-B;${WORK}/build;-DCMAKE_PREFIX_PATH=${WORK}/prefix;-DCMAKE_BUILD_TYPE=Release;-DCMAKE_CXX_COMPILER=${CXX_COMPILER};-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "${CMAKE_COMMAND};--build;${WORK}/build"
    "${WORK}/build/md_ten_steps")
  execute_process(COMMAND ${step} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "consumer step failed (${code}): ${step}")
  endif()
endforeach()
# The Python package installed beside it imports from the prefix's site-packages.
if(PYTHON AND PYSITE)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${WORK}/prefix/${PYSITE}
                          ${PYTHON} -c "import pairwise, pairwise.md, pairwise.plot; print('python package from', pairwise.__file__)"
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT code EQUAL 0 OR NOT out MATCHES "${WORK}/prefix/")
    message(FATAL_ERROR "the installed Python package does not import from ${WORK}/prefix/${PYSITE}")
  endif()
endif()
