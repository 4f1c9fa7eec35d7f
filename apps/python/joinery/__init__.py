"""joinery: multibody dynamics with singular mass matrices, from Python.

A thin layer over the C++ library the ``joinery`` command line uses: the same scene
loader, solver, diagnosis and simulation loop, with NumPy arrays in and out.

    import joinery
    model = joinery.load("pendulum.json", parameters={"L": 0.5})
    model.coordinates                 # ['bob.x', 'bob.y']
    model.check().status              # 'well_posed'
    sol = model.solve()               # accelerations, constraint forces, diagnosis
    sol.accelerations["bob.y"]
    M, Q, A, b, C = model.matrices()  # the equations at a state
    run = model.simulate(t_end=2.0)   # one NumPy array per CSV column
    run["bob.x"], run.t, run.columns
    run = model.simulate(outputs=[{"name": "pin", "reaction": "rod"}])  # + channels
    run["pin.fx"], run.summary["channels"]["pin.fx"]["max"]
    table = joinery.study("study.json", jobs=2)   # as `joinery study`

Models can also be built in Python through the same type registries the scene loader uses
(ModelBuilder; body_types(), joint_types(), force_types() list them).

Errors: joinery.InputError (with .file, .path -- the JSON path -- and .detail) for bad
input, joinery.ModelError when a model cannot be assembled, joinery.SimulationError for a
failed run when asked to raise. All derive from joinery.Error.

Long calls (load, solve, matrices, check, simulate) release the GIL: a
concurrent.futures.ThreadPoolExecutor runs cases on all cores.
See docs/python.md.
"""

from ._joinery import (  # noqa: F401  (re-exported)
    CheckReport,
    Diagnosis,
    Error,
    InputError,
    Model,
    ModelError,
    SimulationError,
    SimulationResult,
    Solution,
    __version__,
    body_types,
    force_types,
    joint_types,
    load,
    solve_problem,
)
from ._builder import ModelBuilder  # noqa: F401
from ._study import StudyResult, study  # noqa: F401

# show the public names as joinery.X (help(), repr and tracebacks), not joinery._joinery.X
for _cls in (CheckReport, Diagnosis, Error, InputError, Model, ModelError, SimulationError,
             SimulationResult, Solution):
    _cls.__module__ = __name__
del _cls

__all__ = [
    "load", "Model", "ModelBuilder", "Solution", "Diagnosis", "CheckReport", "SimulationResult",
    "Error", "InputError", "ModelError", "SimulationError",
    "body_types", "joint_types", "force_types", "solve_problem", "study", "StudyResult",
]
