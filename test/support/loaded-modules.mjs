/**
 * `node --import test/support/loaded-modules.mjs …`: appends the URL of every module the process loads
 * to $LOADED_MODULES_FILE, one a line (test/startup.compiled.test.ts proves with it what is not loaded).
 */
import { register } from "node:module"

register(new URL("./loaded-modules-hooks.mjs", import.meta.url))
