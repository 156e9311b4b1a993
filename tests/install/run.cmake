# ctest Install.FindPackage: `cmake --install` of the build tree into a scratch prefix, then
# tests/install/ configured with find_package(cstsim) against that prefix alone, built and run on
# GEMM 1024^3: it must print the workload's MACs.
#   cmake -DBUILD=<build dir> -DSRC=<source dir> -DWORK=<scratch dir> -P tests/install/run.cmake
file(REMOVE_RECURSE ${WORK})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}\nexited ${rc}\n${out}\n${err}")
  endif()
  set(step_out "${out}" PARENT_SCOPE)
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
step(${CMAKE_COMMAND} -S ${SRC}/tests/install -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_PREFIX_PATH=${WORK}/prefix)
step(${CMAKE_COMMAND} --build ${WORK}/build)
step(${WORK}/build/consumer ${SRC}/configs/workloads/gemm-1024.yaml)
string(STRIP "${step_out}" macs)
if(NOT macs STREQUAL "1073741824")
  message(FATAL_ERROR "the consumer printed '${macs}' MACs for GEMM 1024^3, not 1073741824")
endif()
message(STATUS "find_package(cstsim): a program built against the installed library counts 1073741824 MACs")
