import { defineConfig } from "vitest/config"
import LongestFirst from "./test/support/sequencer.ts"

// docs/development.md "Test suite": why these settings, and what they saved.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Kills what a file left running before the next file starts in the same fork.
    setupFiles: ["test/support/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    poolOptions: {
      forks: {
        // A fork imports the service's ~250 modules through vite-node once, not once per file (about 2 s
        // of CPU a file). Every file has its own database and ports; nothing global is mutated.
        isolate: false
      }
    },
    // vitest's default is one fork per core minus one: a single fork on 2 cores, which leaves the
    // machine idle while a file sleeps or waits on a spawned process. Override with --maxWorkers.
    maxWorkers: 2,
    minWorkers: 1,
    sequence: { sequencer: LongestFirst },
    reporters: ["default"]
  }
})
