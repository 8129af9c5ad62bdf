// The default coefficients of the sigmoidal dielectric ζ(r) = exp(α r³ + β r² + γ r + δ): a
// least-squares fit of ln ε(r) of the Mehler–Solmajer sigmoidal dielectric (see
// pairwise/physics/dielectric.hpp), computed here so the defaults are reproducible.
#pragma once

#include "pairwise/physics/dielectric.hpp"

namespace pairwise::ljc {

// Mehler & Solmajer, Protein Eng. 4, 903 (1991): ε(r) = A + B / (1 + k exp(-λ B r)), B = ε₀ - A.
double mehler_solmajer_epsilon(double r);

// Least-squares cubic fit of ln ε(r) over `samples` equally spaced r in [r_min, r_max] (Å), solved
// by Householder QR on the variable r / r_max (well conditioned), returned as α, β, γ, δ.
physics::SigmoidalCoefficients fit_sigmoidal_dielectric(double r_min = 1.0, double r_max = 20.0,
                                                        int samples = 1901);

}  // namespace pairwise::ljc
