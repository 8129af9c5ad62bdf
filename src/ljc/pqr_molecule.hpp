// A molecule from a PQR file (charges and radii; the shared reader src/core/io/pqr.hpp). PQR has no
// LJ well depths, masses or bonds, so:
//   σ_i = 2 R_i / 2^(1/6)   (the PQR radius taken as R_min/2, as pdb2pqr writes AMBER and CHARMM
//                            radii), ε_i = `epsilon` for every atom,
//   mass from the element (the first letter of the atom name after leading digits: H C N O S P),
//   bonds between atoms closer than 1.2 × the sum of their covalent radii (H 0.31, C 0.76,
//   N 0.71, O 0.66, S 1.05, P 1.07 Å), r0 = the file's distance, k = `bond_k`; the exclusions and
//   1-4 pairs follow from the bonds as for any topology.
#pragma once

#include <string>
#include <vector>

#include "core/io/pqr.hpp"
#include "ljc/molecule.hpp"

namespace pairwise::ljc {

struct PqrOptions {
  double epsilon = 0.1;   // kcal/mol
  double bond_k = 300.0;  // kcal/(mol·Å²)
};

// Mass (amu) and covalent radius (Å) of the element of a PDB/PQR atom name (its first letter after
// leading digits: H C N O S P); false for other elements.
bool element_of_atom(const std::string& name, double& mass, double& covalent_radius);

// Harmonic bonds (r0 = the current distance, k = bond_k) between atoms closer than 1.2 × the sum
// of their covalent radii, sorted by (i, j); atoms with radius 0 get none.
std::vector<Bond> bonds_by_distance(const Molecule& m, const std::vector<double>& covalent_radius,
                                    double bond_k);

// Throws pairwise::Error naming `source` and the atom for an element without a mass.
Molecule molecule_from_pqr(const std::vector<io::AtomRecord>& atoms, const PqrOptions& options,
                           const std::string& source);

}  // namespace pairwise::ljc
