# MuJoCo 2.2.2 (Debian libmujoco-dev) for tests/peers/import and bench/peers only — never the
# library or the program. Debian's mujocoConfig.cmake names /usr/include/libqhull_r/, which the
# package does not install, so the config is not used: the header and the library are found
# directly. Defines the imported target joinery::mujoco and JOINERY_MUJOCO_FOUND.
if(NOT TARGET joinery::mujoco)
  find_path(JOINERY_MUJOCO_INCLUDE mujoco/mujoco.h)
  find_library(JOINERY_MUJOCO_LIBRARY mujoco)
  if(JOINERY_MUJOCO_INCLUDE AND JOINERY_MUJOCO_LIBRARY)
    add_library(joinery::mujoco UNKNOWN IMPORTED)
    set_target_properties(joinery::mujoco PROPERTIES IMPORTED_LOCATION ${JOINERY_MUJOCO_LIBRARY}
                          INTERFACE_INCLUDE_DIRECTORIES ${JOINERY_MUJOCO_INCLUDE})
  endif()
endif()
if(TARGET joinery::mujoco)
  set(JOINERY_MUJOCO_FOUND TRUE)
else()
  set(JOINERY_MUJOCO_FOUND FALSE)
endif()
