"""Fredholm equations of the second kind by Nystrom's method: Equation, solve, phase shifts.

Example (the square-well phase shifts of examples/fredholm-square-well.toml):
    import pairwise.fredholm as fr
    eq = fr.Equation(kernel="square_well", k=1.5, u0=4.0, l=0, n=200)
    result = fr.solve(eq)
    delta = fr.phase_shift(eq, result)   # vs fr.phase_shift_analytic(0, 1.5, 4.0, 1.0)
"""

from ._pairwise import fredholm as _fredholm

Equation = _fredholm.Equation
Result = _fredholm.Result
solve = _fredholm.solve
phase_shift = _fredholm.phase_shift
phase_shift_analytic = _fredholm.phase_shift_analytic
read_config = _fredholm.read_config

__all__ = ["Equation", "Result", "solve", "phase_shift", "phase_shift_analytic", "read_config"]
