# Fails when model/ or storage/ include a Qt header: those layers stay Qt-free.
file(GLOB_RECURSE files ${ROOT}/model/*.h ${ROOT}/model/*.cpp ${ROOT}/storage/*.h ${ROOT}/storage/*.cpp)
foreach(f ${files})
    file(STRINGS ${f} hits REGEX "^[ \t]*#[ \t]*include[ \t]*<Q")
    if(hits)
        message(FATAL_ERROR "${f} includes Qt: ${hits}")
    endif()
endforeach()
message(STATUS "checked ${CMAKE_ARGC} layers: no Qt in model/ or storage/")
