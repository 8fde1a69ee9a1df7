// Run size and seed of the property suites. FUZZ_RUNS: cases per property (150 in CI,
// 10000 for the extended tier). FUZZ_SEED: the seed a failure report printed; every
// property of the run starts from it, so one variable repeats the whole run.
import fc from 'fast-check'

export const RUNS = Number(process.env.FUZZ_RUNS ?? 150)
export const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))

// The failing assertion's own message goes into the report, next to the seed and the path.
fc.configureGlobal({ seed: SEED, includeErrorInReport: true })
