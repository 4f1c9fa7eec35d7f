# The browser front end of `joinery view` (apps/viewer/web): npm installs three.js, uPlot,
# esbuild and puppeteer-core from package-lock.json into the build tree, esbuild bundles the
# viewer into one script, and build.mjs writes it as a C++ source compiled into the joinery
# program (the installed program needs no other file). Without node and npm the program is
# built without the viewer and `joinery view` says so.
find_program(JOINERY_NODE node)
find_program(JOINERY_NPM npm)
set(JOINERY_VIEWER_WEB ${CMAKE_CURRENT_BINARY_DIR}/viewer-web CACHE INTERNAL "the viewer's npm tree")
if(JOINERY_NODE AND JOINERY_NPM)
  set(JOINERY_HAVE_VIEWER ON CACHE INTERNAL "joinery view is built")
  set(web ${CMAKE_CURRENT_SOURCE_DIR}/viewer/web)
  file(GLOB viewer_sources CONFIGURE_DEPENDS ${web}/src/*.js ${web}/src/*.css ${web}/test/*.mjs)
  file(MAKE_DIRECTORY ${JOINERY_VIEWER_WEB})
  set(modules_stamp ${JOINERY_VIEWER_WEB}/node_modules/.package-lock.json)
  add_custom_command(
    OUTPUT ${modules_stamp}
    COMMAND ${CMAKE_COMMAND} -E copy ${web}/package.json ${web}/package-lock.json ${JOINERY_VIEWER_WEB}/
    COMMAND ${CMAKE_COMMAND} -E env PUPPETEER_SKIP_DOWNLOAD=1
            ${JOINERY_NPM} ci --prefer-offline --no-audit --no-fund --loglevel=error
    WORKING_DIRECTORY ${JOINERY_VIEWER_WEB}
    DEPENDS ${web}/package.json ${web}/package-lock.json
    COMMENT "npm ci: the viewer's packages (apps/viewer/web/package-lock.json)"
    VERBATIM)
  set(viewer_cpp ${CMAKE_CURRENT_BINARY_DIR}/viewer_script.cpp)
  add_custom_command(
    OUTPUT ${viewer_cpp}
    COMMAND ${CMAKE_COMMAND} -E copy_directory ${web}/src ${JOINERY_VIEWER_WEB}/src
    COMMAND ${CMAKE_COMMAND} -E copy_directory ${web}/test ${JOINERY_VIEWER_WEB}/test
    COMMAND ${CMAKE_COMMAND} -E copy ${web}/build.mjs ${JOINERY_VIEWER_WEB}/
    COMMAND ${JOINERY_NODE} ${JOINERY_VIEWER_WEB}/build.mjs ${viewer_cpp}
    DEPENDS ${modules_stamp} ${viewer_sources} ${web}/build.mjs
    COMMENT "esbuild: the viewer bundle (three.js, uPlot, apps/viewer/web/src)"
    VERBATIM)
  target_sources(joinery PRIVATE ${viewer_cpp})
  # the bundle is one long string literal, which clang's -Woverlength-strings (part of
  # -Wpedantic) reports; the file is generated, so the warning is off for it alone
  set_source_files_properties(${viewer_cpp} PROPERTIES COMPILE_OPTIONS "-Wno-overlength-strings")
  target_compile_definitions(joinery PRIVATE JOINERY_HAVE_VIEWER=1)
  message(STATUS "joinery view: enabled (node ${JOINERY_NODE}, npm ${JOINERY_NPM})")
else()
  set(JOINERY_HAVE_VIEWER OFF CACHE INTERNAL "joinery view is built")
  message(WARNING "joinery view: node and npm not found; building joinery WITHOUT the viewer "
                  "(install them with scripts/install-deps.sh and configure again)")
endif()
