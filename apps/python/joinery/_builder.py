"""ModelBuilder: a model assembled in Python through the scene loader's type factories."""

import copy

from ._joinery import load as _load


class ModelBuilder:
    """Builds a model element by element, then ``build()`` assembles it.

    Every element is a scene entry: ``add_body("particle", name="p", mass=1, position=[0, 0])``
    is the scene's ``{"type": "particle", "name": "p", "mass": 1, "position": [0, 0]}``, created
    by the same registered factory the scene loader uses, so fields, defaults, expressions of
    parameters and error messages are those of docs/scene-format.md. Errors are raised by
    ``build()`` as joinery.InputError whose ``.path`` points into ``to_dict()``
    (e.g. ``/bodies/0/mass``). NumPy arrays are accepted wherever a list is.

        b = joinery.ModelBuilder(gravity=[0, -9.81, 0], parameters={"L": 1})
        b.add_body("particle", name="bob", dim=2, mass=1, position=["-L", 0])
        b.add_joint("distance", name="rod", body1="ground", point1=[0, 0],
                    body2="bob", point2=[0, 0], length="L")
        model = b.build()

    Type names and an example of each: joinery.body_types(), joint_types(), force_types().
    """

    def __init__(self, name="", gravity=None, parameters=None, simulation=None):
        self._doc = {"joinery": 1, "name": name, "bodies": [], "joints": [], "forces": []}
        if gravity is not None:
            self._doc["gravity"] = gravity
        if parameters:
            self._doc["parameters"] = dict(parameters)
        if simulation:
            self._doc["simulation"] = dict(simulation)

    def _add(self, key, type_, name, fields):
        entry = {"name": name, "type": type_}
        entry.update(fields)
        self._doc[key].append(entry)
        return self

    def add_body(self, type, name, **fields):  # noqa: A002  (the scene's key)
        """Adds a body of a registered type (joinery.body_types()); returns the builder."""
        return self._add("bodies", type, name, fields)

    def add_joint(self, type, name, **fields):  # noqa: A002
        """Adds a joint of a registered type (joinery.joint_types()); returns the builder."""
        return self._add("joints", type, name, fields)

    def add_force(self, type, name, **fields):  # noqa: A002
        """Adds a force element of a registered type (joinery.force_types()); returns the builder."""
        return self._add("forces", type, name, fields)

    def set_gravity(self, g):
        """Uniform gravity [gx, gy(, gz)] in m/s^2."""
        self._doc["gravity"] = g
        return self

    def set_parameter(self, name, value):
        """A scene parameter (number or expression) usable in later fields."""
        self._doc.setdefault("parameters", {})[name] = value
        return self

    def set_simulation(self, **settings):
        """Keys of the scene's `simulation` object (t_end, integrator, rtol, ...)."""
        self._doc.setdefault("simulation", {}).update(settings)
        return self

    def to_dict(self):
        """The scene this builder describes (a copy); joinery.load() accepts it."""
        return copy.deepcopy(self._doc)

    def build(self, complete_massless=False):
        """Assembles the model (raises joinery.InputError / joinery.ModelError)."""
        return _load(self.to_dict(), complete_massless=complete_massless, name="<ModelBuilder>")

    def __repr__(self):
        d = self._doc
        return (f"<joinery.ModelBuilder: {len(d['bodies'])} bodies, {len(d['joints'])} joints, "
                f"{len(d['forces'])} forces>")
