# Fixture for the hostile cases: a FIFO (reading it must not block), a
# read-only file, and a
# copy of an input with a hard link and a symbolic link to it (writing output
# over any of them must be refused).
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY ${WORK})
file(REMOVE ${WORK}/fifo.yaml ${WORK}/input.yaml ${WORK}/hardlink.yaml ${WORK}/symlink.yaml)
execute_process(COMMAND mkfifo ${WORK}/fifo.yaml RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mkfifo failed: ${rc}")
endif()
file(COPY_FILE ${SRC}/examples/qingdao-8xa100.yaml ${WORK}/input.yaml)
file(CREATE_LINK ${WORK}/input.yaml ${WORK}/hardlink.yaml)
file(CREATE_LINK ${WORK}/input.yaml ${WORK}/symlink.yaml SYMBOLIC)
# A serving file to write over (serve reads it, then must refuse -o onto it).
file(COPY_FILE ${SRC}/examples/serve-7b-4090.yaml ${WORK}/serving.yaml)
# A read-only output target (-o must keep it).
file(REMOVE ${WORK}/readonly.csv)
file(WRITE ${WORK}/readonly.csv "kept\n")
file(CHMOD ${WORK}/readonly.csv PERMISSIONS OWNER_READ GROUP_READ WORLD_READ)
