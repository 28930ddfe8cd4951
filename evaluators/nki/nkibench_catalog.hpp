// What NKIBench's files do not say about its problems and the importer must
// know: each output's shape, the FLOP and byte formulas (matrix-engine and
// vector-engine FLOPs apart, for the three-engine roofline), the bound, the
// tolerance (2e-5; mamba 3e-5, as the paper used) and the paper's baseline
// percentage of peak on Trainium 1 (AccelOpt paper, Table of NKIBench).
// The seed YAML gives the inputs; summary.json the dims.
//
// Formulas are integer expressions over the seed's parameters
// (evaluators/nki/dim_expr.hpp). FLOPs count a multiply-add as 2 and each
// +, -, *, /, exp, sqrt, max as 1 (docs/contracts.md); bytes are every
// input read once plus every output written once, fp32.
//
// A problem not listed here is not imported (the importer says so, naming
// summary.json): a new NKIBench problem needs its entry written by a person.
//
// Thread safety: immutable data.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace accelopt::eval::nki {

struct CatalogOutput {
  std::string name;
  std::vector<std::string> shape;  // expressions over the dims
};

struct CatalogEntry {
  std::string name;  // NKIBench's problem name (summary.json key)
  std::string description;
  std::vector<CatalogOutput> outputs;  // in the order forward() returns them
  std::string matmul_flops;            // formula
  std::string vector_flops;            // formula (vector + scalar + GpSimd engines)
  std::string bytes;                   // formula
  std::string bound;                   // memory | vector | matmul
  double tolerance = 2e-5;
  double paper_baseline_pct_trn1 = 0;
  // Adversarial cases (problem.json's "adversarial", JSON text): ours, the
  // same as suites/cpu's for the problem (NKIBench has none); "[]" if none.
  std::string adversarial = "[]";
};

// The entry for `name`, or nullptr.
const CatalogEntry* FindCatalogEntry(const std::string& name);
// Every entry (sorted by name).
const std::vector<CatalogEntry>& Catalog();

}  // namespace accelopt::eval::nki
