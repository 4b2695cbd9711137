import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The service compiled to JavaScript for the processes tests spawn (docs/development.md "Test suite").
 *
 * A child started with `--import tsx` spends seconds of CPU resolving and loading ~250 TypeScript
 * modules through tsx's hooks before it serves anything (measured: 3.7 s of CPU to import src/Roles.ts
 * against 1.6 s for the same modules compiled, on this 2-core machine); the suite spawns dozens of
 * children. So `spawnRole`, `runCli` and `nodeCommand` run the output of `npm run build`'s compiler
 * configuration (tsconfig.build.json: what `npm run start:prod` ships) instead, built once per state of
 * `src/` and shared by every test file and run: the directory is named by a hash of the sources, so an
 * edit in `src/` is always what the next spawned child runs.
 *
 * `GATEWAY_TEST_TSX=1` runs the children through tsx from the sources as before (no build at all).
 */

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url))

const CACHE = join(ROOT, "node_modules", ".cache", "gateway-test-build")

/** A build older than this, of sources that have changed since, is removed. */
const KEEP_MS = 24 * 3_600_000

/** How long a build may take before another test process stops waiting for it and builds itself. */
const STALE_LOCK_MS = 180_000

export interface ServiceEntry {
  /** node arguments that load `src/main.ts` (compiled, or through tsx). */
  readonly main: ReadonlyArray<string>
  /** node arguments that load `src/cli.ts` (compiled, or through tsx). */
  readonly cli: ReadonlyArray<string>
}

const TSX: ServiceEntry = {
  main: ["--import", "tsx", "src/main.ts"],
  cli: ["--import", "tsx", "src/cli.ts"]
}

/** Every file under `dir` but the tests: the modules, and any asset a module reads beside itself. */
const sourceFiles = async (dir: string): Promise<Array<string>> => {
  const entries = await readdir(dir, { withFileTypes: true })
  const files = await Promise.all(
    entries.map((e) =>
      e.isDirectory()
        ? sourceFiles(join(dir, e.name))
        : e.name.endsWith(".test.ts")
          ? Promise.resolve([])
          : Promise.resolve([join(dir, e.name)])
    )
  )
  return files.flat().sort()
}

/** tsc emits only the modules: a non-TypeScript file of src/ is copied to the same place in the output. */
const copyAssets = async (outDir: string) => {
  const src = join(ROOT, "src")
  for (const file of await sourceFiles(src)) {
    if (file.endsWith(".ts")) continue
    const target = join(outDir, relative(src, file))
    await mkdir(dirname(target), { recursive: true })
    await copyFile(file, target)
  }
}

/** Everything the compiled output depends on: the sources, the compiler's options and version. */
const sourceHash = async () => {
  const hash = createHash("sha256")
  const typescript = JSON.parse(readFileSync(join(ROOT, "node_modules/typescript/package.json"), "utf8")) as {
    version: string
  }
  hash.update(`typescript ${typescript.version}\n`)
  for (const file of ["tsconfig.json", "tsconfig.build.json", ...(await sourceFiles(join(ROOT, "src")))]) {
    const path = file.startsWith("/") ? file : join(ROOT, file)
    hash.update(`${relative(ROOT, path)}\n`)
    hash.update(await readFile(path))
  }
  return hash.digest("hex").slice(0, 16)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const compile = (outDir: string) =>
  new Promise<void>((resolve, reject) => {
    // Types are checked by `npm run typecheck`; here only the emit matters (--noCheck: 5 s of CPU, not 30).
    execFile(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json", "--noCheck", "--outDir", outDir],
      { cwd: ROOT, timeout: STALE_LOCK_MS },
      (error, stdout, stderr) =>
        error ? reject(new Error(`compiling src/ for the spawned processes failed\n${stdout}\n${stderr}`)) : resolve()
    )
  })

/** Removes builds of older sources, left a day ago or more (another worktree's may be in use). */
const prune = async (keep: string) => {
  for (const name of await readdir(CACHE).catch(() => [])) {
    if (name === keep) continue
    const path = join(CACHE, name)
    const info = await stat(path).catch(() => undefined)
    if (info && Date.now() - info.mtimeMs > KEEP_MS) await rm(path, { recursive: true, force: true })
  }
}

const build = async (): Promise<ServiceEntry> => {
  const key = await sourceHash()
  const dir = join(CACHE, key)
  const done = join(dir, ".complete")
  const entry: ServiceEntry = { main: [join(dir, "main.js")], cli: [join(dir, "cli.js")] }
  const lock = `${dir}.lock`
  for (;;) {
    if (existsSync(done)) return entry
    await mkdir(CACHE, { recursive: true })
    const mine = await mkdir(lock).then(
      () => true,
      () => false
    )
    if (mine) {
      try {
        if (existsSync(done)) return entry
        const tmp = `${dir}.tmp-${process.pid}`
        await rm(tmp, { recursive: true, force: true })
        await compile(tmp)
        await copyAssets(tmp)
        await writeFile(join(tmp, ".complete"), new Date().toISOString())
        await rm(dir, { recursive: true, force: true })
        await rename(tmp, dir)
        await prune(key)
        return entry
      } finally {
        await rm(lock, { recursive: true, force: true })
      }
    }
    // Another test process is compiling the same sources: wait for it (or take over a dead one's lock).
    const since = await stat(lock).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0
    )
    if (since > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true })
    else await sleep(200)
  }
}

let built: Promise<ServiceEntry> | undefined

/** The node arguments that start the service and the CLI in a child process (compiled once per run). */
export const serviceEntry = (): Promise<ServiceEntry> => {
  if (process.env.GATEWAY_TEST_TSX === "1") return Promise.resolve(TSX)
  built ??= build()
  return built
}
