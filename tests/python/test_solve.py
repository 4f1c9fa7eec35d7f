"""Model.solve() and Model.matrices() on the pendulum against the closed form.

A particle of mass m on a massless rod of length L from the origin, at angle theta from the
downward vertical with angular velocity omega: the rod tension is T = m (g cos(theta) + L omega^2)
and the constraint force on the bob is -T e_r (e_r the unit vector from the pivot to the bob),
so qdd = g + (-T/m) e_r. Tolerance 1e-12 relative: the dense solver's SVDs of a 2 x 2 problem
are accurate to a few ulps of the largest entry (g = 9.81).
"""
import math

import numpy as np
import pytest

import joinery

G = 9.81


def pendulum_state(L, theta, omega):
    e_r = np.array([math.sin(theta), -math.cos(theta)])
    e_t = np.array([math.cos(theta), math.sin(theta)])
    return L * e_r, L * omega * e_t, e_r


@pytest.mark.parametrize("L,m,theta,omega", [(1.0, 1.0, -math.pi / 2, 0.0), (0.7, 2.0, 0.3, 1.5),
                                             (2.5, 0.4, 2.0, -3.0), (0.25, 5.0, math.pi, 0.5)])
def test_pendulum_accelerations_and_tension(scenes, L, m, theta, omega):
    model = joinery.load(scenes / "pendulum.json", parameters={"L": L, "m": m})
    assert model.coordinates == ["bob.x", "bob.y"]
    q, qdot, e_r = pendulum_state(L, theta, omega)
    sol = model.solve(q, qdot)
    T = m * (G * math.cos(theta) + L * omega**2)
    expected_qdd = np.array([0.0, -G]) - (T / m) * e_r
    scale = G + L * omega**2
    assert sol.well_posed and sol.status == "well_posed"
    np.testing.assert_allclose(sol.qdd, expected_qdd, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(sol.constraint_force, -T * e_r, rtol=0, atol=1e-12 * m * scale)
    assert sol.accelerations["bob.y"] == pytest.approx(expected_qdd[1], abs=1e-12 * scale)
    assert sol.constraint_forces["bob.x"] == pytest.approx(-T * e_r[0], abs=1e-12 * m * scale)
    # the rod tension from the generalized force: |Qc| = |T|
    assert np.linalg.norm(sol.constraint_force) == pytest.approx(abs(T), rel=1e-12, abs=1e-12)
    np.testing.assert_array_equal(sol.q, q)
    np.testing.assert_array_equal(sol.qdot, qdot)
    # the rod's own results: signed tension and the force on the bob (body2) at its point
    rod = sol.joints["rod"]
    assert rod["tension"] == pytest.approx(T, rel=1e-12, abs=1e-12 * m * scale)
    np.testing.assert_allclose(rod["force2"], [-T * e_r[0], -T * e_r[1], 0.0], rtol=0, atol=1e-12 * m * scale)
    assert rod["unique"] is True and "force1" not in rod  # body1 is the ground


def test_solve_defaults_to_the_initial_state(scenes):
    model = joinery.load(scenes / "pendulum.json")
    q0, v0 = model.initial_state()
    np.testing.assert_array_equal(q0, [-1.0, 0.0])
    sol = model.solve()
    # released horizontally at rest: free fall, no tension
    np.testing.assert_allclose(sol.qdd, [0.0, -G], atol=1e-12)
    assert sol.to_dict()["qdd"] == pytest.approx({"bob.x": 0.0, "bob.y": -G}, abs=1e-12)


def test_matrices_satisfy_the_equations(scenes):
    model = joinery.load(scenes / "pendulum.json", parameters={"L": 0.7, "m": 2.0})
    q, qdot, e_r = pendulum_state(0.7, 0.3, 1.5)
    M, Q, A, b, C = model.matrices(q, qdot)
    np.testing.assert_allclose(M, 2.0 * np.eye(2), atol=0)
    np.testing.assert_allclose(Q, [0.0, -2.0 * G], atol=1e-15)
    assert A.shape == (1, 2) and b.shape == (1,)
    # the rod's row is along e_r
    assert abs(A[0] @ np.array([e_r[1], -e_r[0]])) < 1e-12 * np.linalg.norm(A[0])
    np.testing.assert_array_equal(C, [0.0, 0.0])
    sol = model.solve(q, qdot)
    np.testing.assert_allclose(A @ sol.qdd, b, atol=1e-12 * np.linalg.norm(A))
    np.testing.assert_allclose(M @ sol.qdd, Q + sol.constraint_force, atol=1e-11)


def test_joint_results_as_the_cli(cli, scenes):
    import json
    import subprocess
    path = scenes / "slider_crank.json"
    expected = json.loads(subprocess.run([cli, "solve", "--json", str(path)], capture_output=True,
                                         text=True).stdout)["joints"]
    joints = joinery.load(path).solve().joints
    assert set(joints) == set(expected)
    for name, result in joints.items():
        for key, value in result.items():  # the CLI adds descriptions (type, bodies, rows)
            assert expected[name][key] == pytest.approx(value, abs=1e-12), (name, key)
    # Newton's third law at the wrist pin
    np.testing.assert_allclose(joints["wrist_pin"]["force1"], -np.array(joints["wrist_pin"]["force2"]), atol=1e-12)


def test_solve_problem_matrices():
    sol = joinery.solve_problem(M=[[2.0, 0.0], [0.0, 0.0]], Q=[1.0, 0.0], A=[[1.0, 1.0]], b=[0.5],
                                coordinates=["x", "y"])
    # x'' = 1/2 from the mass; y'' = 0.5 - x'' = 0 from the row: unique
    assert sol.well_posed
    assert sol.accelerations == pytest.approx({"x": 0.5, "y": 0.0}, abs=1e-14)


def test_wrong_state_length_is_a_value_error(scenes):
    model = joinery.load(scenes / "pendulum.json")
    with pytest.raises(ValueError, match="q has 3 entries"):
        model.solve(q=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="not finite"):
        model.solve(qdot=[float("nan"), 0.0])
