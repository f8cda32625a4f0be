# cmake -DNM=nm -DOBJCOPY=objcopy -DLIB=libx.a -DPREFIX=p_ -P prefix-symbols.cmake
# Renames every global symbol that LIB defines to PREFIX<name>, in its definitions and in the
# references of the archive's other members.
execute_process(COMMAND ${NM} -g --defined-only ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if (NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${LIB}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(map "")
foreach(line IN LISTS lines)
    if (line MATCHES "^[0-9a-fA-F]+ [A-Z] ([A-Za-z_][A-Za-z0-9_.$]*)$")
        # a member renamed earlier still maps the bare name: references to it left in a rebuilt
        # member get the prefix too
        string(REGEX REPLACE "^${PREFIX}" "" sym "${CMAKE_MATCH_1}")
        string(APPEND map "${sym} ${PREFIX}${sym}\n")
    endif()
endforeach()
file(WRITE ${LIB}.syms "${map}")
execute_process(COMMAND ${OBJCOPY} --redefine-syms=${LIB}.syms ${LIB} RESULT_VARIABLE rc)
if (NOT rc EQUAL 0)
    message(FATAL_ERROR "${OBJCOPY} --redefine-syms failed on ${LIB}")
endif()
