import { afterAll } from "vitest"
import { stopLeftovers } from "./processes.ts"

// Registered before the file's own hooks, so it runs after them (vitest runs after-hooks as a stack):
// whatever the file did not stop is killed before the next file starts in the same fork.
afterAll(stopLeftovers)
