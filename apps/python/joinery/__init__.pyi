"""Type hints of the joinery package (docs/python.md)."""
import os
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

ArrayLike = Union[npt.ArrayLike, Sequence[float]]
Vector = npt.NDArray[np.float64]
Matrix = npt.NDArray[np.float64]
PathLike = Union[str, "os.PathLike[str]"]

__version__: str

class Error(RuntimeError):
    """Base of every error joinery raises on purpose."""

class InputError(Error):
    """Bad input: .file names the source, .path the JSON path, .detail the message alone."""
    file: str
    path: str
    detail: str

class ModelError(Error):
    """The model cannot be assembled, or its matrices are not a valid problem."""
    field: str
    row: int
    col: int

class SimulationError(Error):
    """A run failed (raised by simulate(check=True))."""

class Diagnosis:
    status: str  # 'well_posed' | 'ill_posed' | 'inconsistent'
    well_posed: bool
    consistent: bool
    n: int
    m: int
    rank_A: int
    rank_MA: int
    redundant_constraints: int
    residual: float
    inconsistency: float
    indeterminate: List[str]
    indeterminate_directions: List[Dict[str, Any]]
    inconsistent_rows: List[str]
    null_basis: Matrix
    messages: List[str]

class Solution:
    qdd: Vector
    accelerations: Dict[str, float]
    force_ideal: Vector
    force_nonideal: Vector
    constraint_force: Vector
    constraint_forces: Dict[str, float]
    joints: Dict[str, Dict[str, Any]]
    diagnosis: Diagnosis
    status: str
    well_posed: bool
    t: float
    q: Vector
    qdot: Vector
    def to_dict(self) -> Dict[str, Any]: ...

class CheckReport:
    diagnosis: Diagnosis
    solution: Solution
    status: str
    well_posed: bool
    mobility_count: int
    mobility_rank: Optional[int]
    components: int
    loops: List[List[str]]
    free_floating: List[str]
    unattached: List[str]
    indeterminate: List[str]
    indeterminate_bodies: List[str]
    completion: List[Dict[str, Any]]
    completable: bool
    messages: List[str]
    joints: Dict[str, Dict[str, Any]]
    def to_dict(self) -> Dict[str, Any]: ...

class SimulationResult:
    columns: List[str]
    t: Vector
    outcome: str  # 'completed' | 'stopped' | 'ill_posed' | 'inconsistent' | 'invalid_initial_conditions' | 'failed'
    completed: bool
    exit_code: int
    message: str
    t_reached: float
    final_q: Vector
    final_qdot: Vector
    stats: Dict[str, float]
    initial_conditions: Dict[str, Any]
    summary: Dict[str, Any]  # the JSON of `joinery simulate --summary`
    def __getitem__(self, column: str) -> Vector: ...
    def __contains__(self, column: str) -> bool: ...
    def __len__(self) -> int: ...
    def keys(self) -> List[str]: ...
    def to_dict(self) -> Dict[str, Vector]: ...
    def to_array(self) -> Matrix: ...
    def to_hdf5(self, path: str) -> None: ...

SampleCallback = Callable[[float, Vector, Vector], Optional[bool]]

class Model:
    name: str
    file: str
    coordinates: List[str]
    constraint_rows: List[str]
    bodies: List[str]
    joints: List[str]
    forces: List[str]
    n: int
    m: int
    resolved: Dict[str, Any]
    simulation_settings: Dict[str, Any]
    def initial_state(self) -> Tuple[Vector, Vector]: ...
    def solve(self, q: Optional[ArrayLike] = None, qdot: Optional[ArrayLike] = None, t: float = 0.0) -> Solution: ...
    def matrices(self, q: Optional[ArrayLike] = None, qdot: Optional[ArrayLike] = None,
                 t: float = 0.0) -> Tuple[Matrix, Vector, Matrix, Vector, Vector]: ...
    def check(self) -> CheckReport: ...
    def simulate(self, t_end: Optional[float] = None, *, q: Optional[ArrayLike] = None,
                 qdot: Optional[ArrayLike] = None, strict: bool = False,
                 callback: Optional[SampleCallback] = None, check: bool = False,
                 outputs: Optional[Sequence[Mapping[str, Any]]] = None, accelerations: bool = False,
                 **settings: Union[float, str]) -> SimulationResult:
        """settings: integrator, rtol, atol, step, output_interval, stabilization (the scene's keys)."""

def load(source: Union[PathLike, Mapping[str, Any]], parameters: Optional[Mapping[str, Union[float, str]]] = None,
         *, complete_massless: bool = False, name: str = "<dict>",
         confine_includes: Union[None, bool, PathLike] = None) -> Model: ...
def solve_problem(source: Union[PathLike, Mapping[str, Any], None] = None, *, M: Optional[ArrayLike] = None,
                  Q: Optional[ArrayLike] = None, A: Optional[ArrayLike] = None, b: Optional[ArrayLike] = None,
                  C: Optional[ArrayLike] = None, coordinates: Optional[Sequence[str]] = None) -> Solution: ...
def body_types() -> Dict[str, Dict[str, Any]]: ...

class StudyResult:
    columns: List[str]
    parameters: List[str]
    table: Optional[str]
    total: int
    ran: int
    skipped: int
    failed: int
    def __getitem__(self, column: str) -> Any: ...  # float array; "message": List[str]
    def __contains__(self, column: str) -> bool: ...
    def __len__(self) -> int: ...
    def keys(self) -> List[str]: ...
    def values(self, column: str) -> List[str]: ...

def study(path: PathLike, output: Optional[PathLike] = None, *, jobs: int = 1, resume: bool = False,
          time_limit: Optional[float] = None) -> StudyResult: ...
def joint_types() -> Dict[str, Dict[str, Any]]: ...
def force_types() -> Dict[str, Dict[str, Any]]: ...

class ModelBuilder:
    def __init__(self, name: str = "", gravity: Optional[ArrayLike] = None,
                 parameters: Optional[Mapping[str, Union[float, str]]] = None,
                 simulation: Optional[Mapping[str, Any]] = None) -> None: ...
    def add_body(self, type: str, name: str, **fields: Any) -> "ModelBuilder": ...
    def add_joint(self, type: str, name: str, **fields: Any) -> "ModelBuilder": ...
    def add_force(self, type: str, name: str, **fields: Any) -> "ModelBuilder": ...
    def set_gravity(self, g: ArrayLike) -> "ModelBuilder": ...
    def set_parameter(self, name: str, value: Union[float, str]) -> "ModelBuilder": ...
    def set_simulation(self, **settings: Any) -> "ModelBuilder": ...
    def to_dict(self) -> Dict[str, Any]: ...
    def build(self, complete_massless: bool = False) -> Model: ...
